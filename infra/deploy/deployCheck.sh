#!/usr/bin/env bash
# `make deploy-check`: builds and runs the deployment for real, as far as one machine allows, and
# tears it down. Opt-in (not part of `make test`): it needs root for the steps that install and start
# Docker, a few GB of disk and several minutes.
#
#  1. Docker: installs Debian's docker.io when dockerd is missing and starts the engine when none
#     answers (stopped again at the end);
#  2. Compose v2.24+ and buildx: when the docker client has none, takes Debian 13's docker-compose
#     and docker-buildx packages (apt-get download into a cache, unpacked there, used through a
#     DOCKER_CONFIG of this run: nothing is installed system-wide);
#  3. base images: when node:20.19-bookworm-slim or postgres:17-bookworm is missing and cannot be
#     pulled (no image registry reachable), builds a stand-in from Debian 13's packages with
#     mmdebstrap (nodejs 20 and npm; postgresql-17 with an entrypoint that honours POSTGRES_*),
#     labelled as a stand-in and cached by the engine for the next run;
#  4. the image, built with BuildKit (docker buildx build): size, user, no VOLUME, no better-sqlite3
#     build leftovers;
#  5. the API container alone on a named volume: health and readiness; the placeholder key refused;
#     a root-owned bind mount refused with one line;
#  6. the Compose demo profile (`docker compose --profile demo up --wait`): two API replicas sharing
#     PostgreSQL (the demo watcher's extraction read back through both), the watcher healthy, the UI
#     serving the page and proxying the API; a watcher on an unknown environment exits 3; Compose
#     commands without LINEAGE_SVC_WATCH_ENVIRONMENT;
#  7. tears everything down (containers, networks, volumes; the images stay cached).
#
# Prints one line per step and per check, then `deploy-check: N passed, M failed`; exits 1 when a
# check failed, 2 when a step could not run (the line says which and why).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DEPLOY="$ROOT/infra/deploy"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/lineage-svc/deploy-check"
WORK=$(mktemp -d /tmp/lineage-svc-deploy-check.XXXXXX)
IMAGE=lineage-svc:0.1.0
NODE_BASE="node:$(sed -n 's/^ARG NODE_VERSION=//p' "$DEPLOY/Dockerfile")-bookworm-slim"
POSTGRES_BASE=$(sed -n 's/^ *image: \(postgres:.*\)$/\1/p' "$DEPLOY/compose.yaml")
PROJECT=lineage-svc-deploy-check
# Debian 13 (trixie): nodejs 20, postgresql-17, docker-compose 2.26 and docker-buildx 0.13.
STANDIN_SUITE=trixie
DEBIAN_MIRROR=http://deb.debian.org/debian

passed=0
failed=0
started_engine=''
started_at=$SECONDS

step() { printf '%s deploy-check: %s\n' "$(date -u +%H:%M:%S)" "$*"; }
# check NAME COMMAND...: runs the command, counts and prints the result.
check() {
  local name=$1
  shift
  if "$@" >"$WORK/check.log" 2>&1; then
    passed=$((passed + 1))
    printf '  ok    %s\n' "$name"
  else
    failed=$((failed + 1))
    printf '  FAIL  %s\n' "$name"
    sed 's/^/        /' "$WORK/check.log" | tail -n 15
  fi
}
# give_up REASON: a step that cannot run ends the check (exit 2) after the teardown.
give_up() {
  step "cannot go on: $*"
  exit 2
}

compose() { (cd "$DEPLOY" && docker compose -p "$PROJECT" "$@"); }

teardown() {
  local code=$?
  step 'tearing down'
  if docker info >/dev/null 2>&1; then
    compose --profile demo --profile watcher down --volumes --remove-orphans >/dev/null 2>&1 || true
    docker rm -f "$PROJECT-api" >/dev/null 2>&1 || true
    docker volume rm "$PROJECT-data" >/dev/null 2>&1 || true
  fi
  if [ -n "$started_engine" ]; then
    kill "$started_engine" 2>/dev/null || true
    for _ in $(seq 1 30); do kill -0 "$started_engine" 2>/dev/null || break; sleep 1; done
    step 'engine stopped'
  fi
  rm -rf "$WORK"
  printf 'deploy-check: %d passed, %d failed (%d s)\n' "$passed" "$failed" "$((SECONDS - started_at))"
  if [ "$code" -eq 0 ] && [ "$failed" -gt 0 ]; then code=1; fi
  exit "$code"
}
trap teardown EXIT

# --- 1. the engine ---------------------------------------------------------------------------
ensure_engine() {
  if docker info >/dev/null 2>&1; then
    step "engine: $(docker version --format '{{.Server.Version}}') already running"
    return
  fi
  if ! command -v dockerd >/dev/null; then
    [ "$(id -u)" -eq 0 ] || give_up 'dockerd is missing and installing docker.io needs root'
    step "installing Debian's docker.io"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker.io >/dev/null ||
      give_up "apt-get install docker.io failed"
  fi
  step 'starting dockerd'
  dockerd >"$WORK/dockerd.log" 2>&1 &
  started_engine=$!
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && break
    kill -0 "$started_engine" 2>/dev/null || give_up "dockerd exited: $(tail -n 3 "$WORK/dockerd.log" | tr '\n' ' ')"
    sleep 1
  done
  docker info >/dev/null 2>&1 || give_up 'dockerd did not answer within 60 s'
  step "engine: $(docker version --format '{{.Server.Version}}') started"
}

# --- 2. Compose and buildx --------------------------------------------------------------------
# True when `docker compose` is 2.24 or later (the floor of compose.yaml's env_file entries).
compose_recent() {
  local version
  version=$(docker compose version --short 2>/dev/null) || return 1
  version=${version#v}
  [ "$(printf '%s\n2.24.0\n' "$version" | sort -V | head -n 1)" = '2.24.0' ]
}

ensure_plugins() {
  if compose_recent && docker buildx version >/dev/null 2>&1; then
    step "compose $(docker compose version --short), $(docker buildx version | cut -d' ' -f1-2)"
    return
  fi
  local plugins="$CACHE/cli-plugins"
  if [ ! -x "$plugins/docker-compose" ] || [ ! -x "$plugins/docker-buildx" ]; then
    step "fetching Debian's docker-compose and docker-buildx packages ($STANDIN_SUITE)"
    local apt="$CACHE/apt"
    mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$plugins"
    printf 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n' \
      "$DEBIAN_MIRROR" "$STANDIN_SUITE" >"$apt/sources.list"
    local options=(-o APT::Sandbox::User=root -o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
      -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache::Archives=$apt/archives")
    apt-get "${options[@]}" update -qq || give_up "apt-get update of Debian $STANDIN_SUITE failed"
    (cd "$apt" && apt-get "${options[@]}" download docker-compose docker-buildx >/dev/null) ||
      give_up 'apt-get download docker-compose docker-buildx failed'
    for package in "$apt"/docker-compose_*.deb "$apt"/docker-buildx_*.deb; do
      dpkg-deb -x "$package" "$apt/unpacked"
    done
    cp "$apt"/unpacked/usr/libexec/docker/cli-plugins/docker-{compose,buildx} "$plugins/"
  fi
  # A DOCKER_CONFIG of this run: the plugins without touching ~/.docker or the system's folders.
  export DOCKER_CONFIG="$WORK/docker-config"
  mkdir -p "$DOCKER_CONFIG/cli-plugins"
  ln -s "$plugins"/docker-{compose,buildx} "$DOCKER_CONFIG/cli-plugins/"
  compose_recent || give_up "docker compose $(docker compose version --short 2>&1) is older than 2.24"
  step "compose $(docker compose version --short), $(docker buildx version | cut -d' ' -f1-2) (Debian $STANDIN_SUITE packages)"
}

# --- 3. base images ---------------------------------------------------------------------------
# standin_rootfs NAME PACKAGES: a Debian root file system with PACKAGES, imported as NAME.
standin_rootfs() {
  local name=$1 packages=$2
  docker image inspect "$name" >/dev/null 2>&1 && return
  if ! command -v mmdebstrap >/dev/null; then
    [ "$(id -u)" -eq 0 ] || give_up 'mmdebstrap is missing and installing it needs root'
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null ||
      give_up 'apt-get install mmdebstrap failed'
  fi
  mmdebstrap --quiet --variant=apt --include="$packages" \
    --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*' \
    "$STANDIN_SUITE" "$WORK/rootfs.tar" "$DEBIAN_MIRROR" || give_up "mmdebstrap of $packages failed"
  docker import --change 'CMD ["bash"]' "$WORK/rootfs.tar" "$name" >/dev/null
  rm -f "$WORK/rootfs.tar"
}

# The certificate authorities this machine adds to Debian's (/usr/local/share/ca-certificates, e.g.
# a TLS-inspecting proxy's), copied into the stand-ins so that npm inside a build trusts what the
# machine trusts. None on most machines.
standin_certificates() {
  mkdir -p "$WORK/certificates"
  find /usr/local/share/ca-certificates -name '*.crt' -exec cp {} "$WORK/certificates/" \; 2>/dev/null || true
}

# The stand-in for node:*-bookworm-slim: Debian's nodejs 20, and npm 10 as in the official image
# (installed by Debian's npm 9 from the npm registry), on PATH as there. node-gyp compiles against
# Debian's Node headers (/usr/include/node, npm_config_nodedir=/usr), as the official image's come
# with its Node: no headers are downloaded.
standin_node() {
  standin_rootfs lineage-svc-standin/node-rootfs:latest 'nodejs,npm,ca-certificates'
  standin_certificates
  cat >"$WORK/Dockerfile.node" <<'EOF'
FROM lineage-svc-standin/node-rootfs:latest
LABEL org.opencontainers.image.description="stand-in built from Debian packages by make deploy-check"
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
    npm_config_nodedir=/usr
COPY certificates/ /usr/local/share/ca-certificates/
RUN update-ca-certificates >/dev/null && npm install -g --no-audit --no-fund npm@10.8.2 >/dev/null
CMD ["node"]
EOF
  docker buildx build --quiet --load -f "$WORK/Dockerfile.node" -t "$NODE_BASE" "$WORK" >/dev/null
}

# The stand-in for postgres:*-bookworm: Debian's postgresql-17 and an entrypoint that creates the
# cluster, the user and the database from POSTGRES_USER, POSTGRES_PASSWORD and POSTGRES_DB.
standin_postgres() {
  standin_rootfs lineage-svc-standin/postgres-rootfs:latest 'postgresql-17'
  cat >"$WORK/entrypoint.sh" <<'EOF'
#!/bin/bash
set -euo pipefail
export PGDATA=${PGDATA:-/var/lib/postgresql/data}
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  mkdir -p "$PGDATA" && chown postgres:postgres "$PGDATA" && chmod 700 "$PGDATA"
  printf '%s\n' "$POSTGRES_PASSWORD" >/tmp/password && chown postgres /tmp/password
  runuser -u postgres -- initdb -U "$POSTGRES_USER" --pwfile=/tmp/password -A scram-sha-256 -D "$PGDATA" >/dev/null
  rm -f /tmp/password
  echo 'host all all all scram-sha-256' >>"$PGDATA/pg_hba.conf"
  echo "CREATE DATABASE \"$POSTGRES_DB\" OWNER \"$POSTGRES_USER\";" |
    runuser -u postgres -- postgres --single -D "$PGDATA" postgres >/dev/null
fi
mkdir -p /var/run/postgresql && chown postgres:postgres /var/run/postgresql
exec runuser -u postgres -- postgres -D "$PGDATA" -c listen_addresses='*'
EOF
  chmod 755 "$WORK/entrypoint.sh"
  cat >"$WORK/Dockerfile.postgres" <<'EOF'
FROM lineage-svc-standin/postgres-rootfs:latest
LABEL org.opencontainers.image.description="stand-in built from Debian packages by make deploy-check"
ENV PATH=/usr/lib/postgresql/17/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
COPY entrypoint.sh /usr/local/bin/entrypoint.sh
ENTRYPOINT ["/usr/local/bin/entrypoint.sh"]
EOF
  docker buildx build --quiet --load -f "$WORK/Dockerfile.postgres" -t "$POSTGRES_BASE" "$WORK" >/dev/null
}

ensure_base() {
  local image=$1 builder=$2
  if docker image inspect "$image" >/dev/null 2>&1; then
    step "base image $image: present ($(docker image inspect --format '{{index .Config.Labels "org.opencontainers.image.description"}}' "$image" 2>/dev/null || true))"
    return
  fi
  if timeout 60 docker pull -q "$image" >/dev/null 2>&1; then
    step "base image $image: pulled"
    return
  fi
  step "base image $image: no registry reachable; building a stand-in from Debian $STANDIN_SUITE packages"
  "$builder"
  step "base image $image: stand-in built"
}

# --- helpers of the checks --------------------------------------------------------------------
# http_status URL: the HTTP status of GET URL (000 when nothing answers).
http_status() { curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$1" || true; }
# wait_for_status URL STATUS SECONDS
wait_for_status() {
  local url=$1 status=$2 seconds=$3
  for _ in $(seq 1 "$seconds"); do
    [ "$(http_status "$url")" = "$status" ] && return 0
    sleep 1
  done
  echo "GET $url did not answer $status within $seconds s (last: $(http_status "$url"))"
  return 1
}
expect_status() { [ "$(http_status "$1")" = "$2" ] || { echo "GET $1: $(http_status "$1"), expected $2"; return 1; }; }
# The graphs each API replica lists, as sorted ids.
graph_ids() { curl -sf --max-time 10 "$1/api/v1/graphs" | jq -r '[.. | objects | select(has("graph_id")) | .graph_id] | unique | join(",")'; }

# --- 4. the image -----------------------------------------------------------------------------
check_image() {
  local size user volumes
  size=$(docker image inspect --format '{{.Size}}' "$IMAGE")
  user=$(docker image inspect --format '{{.Config.User}}' "$IMAGE")
  volumes=$(docker image inspect --format '{{json .Config.Volumes}}' "$IMAGE")
  step "image $IMAGE: $((size / 1000000)) MB, user $user, volumes $volumes"
  check 'the image runs as user 1000, declares no VOLUME' test "$user" = '1000:1000' -a "$volumes" = 'null'
  check 'better-sqlite3 keeps only its compiled module' \
    docker run --rm "$IMAGE" bash -c \
    'cd node_modules/better-sqlite3 && test ! -e deps && test ! -e src && test "$(find build -type f)" = build/Release/better_sqlite3.node'
  check 'every bin of package.json answers --version in the image' docker run --rm "$IMAGE" node -e \
    "const {execFileSync} = require('node:child_process');
     for (const bin of Object.values(require('./package.json').bin))
       process.stdout.write(execFileSync('node', [bin, '--version']));"
}

# --- 5. the API container alone ---------------------------------------------------------------
check_api_container() {
  docker volume create "$PROJECT-data" >/dev/null
  docker run -d --name "$PROJECT-api" --read-only --tmpfs /tmp --cap-drop ALL -v "$PROJECT-data:/data" \
    -p 127.0.0.1::8000 "$IMAGE" >/dev/null
  local port
  port=$(docker port "$PROJECT-api" 8000/tcp | head -n 1 | sed 's/.*://')
  check 'API container: ready on a named volume (read-only root, no capabilities)' \
    wait_for_status "http://127.0.0.1:$port/api/v1/ready" 200 60
  check 'API container: healthy' expect_status "http://127.0.0.1:$port/api/v1/health" 200
  check 'API container: stops on SIGTERM with exit 0' bash -c \
    "docker stop -t 20 $PROJECT-api >/dev/null && test \"\$(docker inspect --format '{{.State.ExitCode}}' $PROJECT-api)\" = 0"
  docker rm -f "$PROJECT-api" >/dev/null
  check 'the placeholder key change-me is refused at start with one line, exit 2' bash -c \
    "out=\$(docker run --rm -e LINEAGE_SVC_API_KEY=change-me $IMAGE 2>&1); code=\$?; echo \"\$out\";
     test \$code = 2 && echo \"\$out\" | grep -q 'LINEAGE_SVC_API_KEY is the placeholder'"
  mkdir -p "$WORK/root-owned" && chmod 755 "$WORK/root-owned"
  check 'a root-owned bind mount is refused at start with one line naming the fix, exit 2' bash -c \
    "out=\$(docker run --rm -e LINEAGE_SVC_LOG_LEVEL=WARNING -v $WORK/root-owned:/data $IMAGE 2>&1); code=\$?; echo \"\$out\";
     test \$code = 2 && test \$(echo \"\$out\" | wc -l) = 1 && echo \"\$out\" | grep -q 'is not writable by this process (user 1000:1000)'"
}

# --- 6. the Compose demo profile --------------------------------------------------------------
check_compose() {
  check 'compose config, ps and down need no LINEAGE_SVC_WATCH_ENVIRONMENT' bash -c \
    "cd '$DEPLOY' && env -u LINEAGE_SVC_WATCH_ENVIRONMENT docker compose -p $PROJECT --profile demo --profile watcher config -q &&
     docker compose -p $PROJECT ps >/dev/null && docker compose -p $PROJECT down >/dev/null"
  step 'docker compose --profile demo up --wait'
  if ! compose --profile demo up -d --wait --wait-timeout 300 >"$WORK/up.log" 2>&1; then
    failed=$((failed + 1))
    printf '  FAIL  the demo profile comes up healthy\n'
    tail -n 20 "$WORK/up.log" | sed 's/^/        /'
    compose --profile demo ps -a | sed 's/^/        /'
    compose --profile demo logs --tail 15 | sed 's/^/        /'
    return
  fi
  passed=$((passed + 1))
  printf '  ok    the demo profile comes up healthy: %s\n' \
    "$(compose --profile demo ps --format '{{.Service}}' | sort | uniq -c | awk '{ printf "%s%s x%s", sep, $2, $1; sep=", " }')"
  check 'one image for every lineage-svc service' bash -c \
    "test \$(cd '$DEPLOY' && docker compose -p $PROJECT --profile demo ps --format '{{.Image}}' | grep -v postgres | sort -u | wc -l) = 1"
  for port in 8000 8001; do
    check "API replica on 127.0.0.1:$port: ready and healthy" bash -c \
      "$(declare -f http_status expect_status); expect_status http://127.0.0.1:$port/api/v1/ready 200 &&
       expect_status http://127.0.0.1:$port/api/v1/health 200"
  done
  # The demo watcher records its first extraction; both replicas read it from PostgreSQL.
  local waited=0 first='' second=''
  while [ "$waited" -lt 180 ]; do
    first=$(graph_ids http://127.0.0.1:8000 || true)
    second=$(graph_ids http://127.0.0.1:8001 || true)
    [ -n "$first" ] && [ "$first" = "$second" ] && break
    sleep 2
    waited=$((waited + 2))
  done
  check "two replicas share PostgreSQL: the watcher's graph ($first) read through both" \
    bash -c "test -n '$first' && test '$first' = '$second'"
  check 'the demo watcher is healthy (heartbeat) and extracted the demo estate' bash -c \
    "cd '$DEPLOY' && docker compose -p $PROJECT --profile demo ps demo-watcher --format '{{.Health}}' | grep -qx healthy &&
     docker compose -p $PROJECT --profile demo logs demo-watcher | grep -q 'EXTRACTING -> WATCHING'"
  check 'the UI serves its page and proxies the API' bash -c \
    "$(declare -f http_status expect_status graph_ids); expect_status http://127.0.0.1:8501/ 200 &&
     test \"\$(graph_ids http://127.0.0.1:8501)\" = '$first'"
  check 'a watcher on an environment the platform does not know exits 3 with one line' bash -c \
    "out=\$(docker run --rm --network ${PROJECT}_default --env-file '$DEPLOY/compose.env' --env-file '$DEPLOY/demo.env' \
       -e LINEAGE_SVC_LOG_LEVEL=WARNING $IMAGE node dist/commands/watch.js --env env-nosuch1 2>&1); code=\$?; echo \"\$out\";
     test \$code = 3 && echo \"\$out\" | grep -q 'does not know the environment env-nosuch1'"
}

step "checking the deployment of $ROOT (work folder $WORK)"
ensure_engine
ensure_plugins
ensure_base "$NODE_BASE" standin_node
ensure_base "$POSTGRES_BASE" standin_postgres
step "building $IMAGE with BuildKit (docker buildx build)"
build_started=$SECONDS
docker buildx build --progress=plain --load -f "$DEPLOY/Dockerfile" -t "$IMAGE" "$ROOT" >"$WORK/build.log" 2>&1 ||
  { tail -n 30 "$WORK/build.log"; give_up 'the image build failed'; }
step "built in $((SECONDS - build_started)) s"
check_image
check_api_container
check_compose
