# lineage-svc: every entry point of the project. `make demo` and `make test` work on a fresh
# machine with Node >= 20.19, npm, make, a C++ compiler and python3 (README.md): each installs what it needs first.
SHELL := /bin/bash
.DEFAULT_GOAL := help

NODE_TEST := node --import tsx --test --test-reporter=spec
# Node 20's test runner does not expand globs and exits 0 when it finds nothing, so the test
# files are listed here and an empty list is an error.
TESTS := $(shell find test -name '*.test.ts' 2>/dev/null | sort)

.PHONY: help install build typecheck lint api-docs format test test-file package-check demo bench soak facet-schemas clean ui \
	browser serve kafka java-jars deploy-check

# One line per target; `make` alone prints this.
help:
	@echo "make demo            extract the demo estate from the built-in platform simulator"
	@echo "make serve           run the simulator, the API and the web UI on the demo estate"
	@echo "make test            install, build and run every test"
	@echo "make test-file FILE=test/...  run one test file"
	@echo "make package-check   pack the package, install the tarball in an empty folder, run every bin (CI)"
	@echo "make build           compile the product to dist/ (incremental; tests and benchmarks excluded) and build the UI"
	@echo "make ui              typecheck the web UI and bundle it into dist/ui"
	@echo "make typecheck       typecheck everything, tests and benchmarks included"
	@echo "make lint            Prettier's format, no line over 160 characters, and Redocly's lint of the OpenAPI document"
	@echo "make api-docs        rewrite the endpoint table of docs/api.md from the OpenAPI document"
	@echo "make format          rewrite every TypeScript file in Prettier's format"
	@echo "make bench           run the benchmarks; writes bench/results.json"
	@echo "make soak            long adversarial runs: load, SIGKILL loops, full disk, database outage, 30 MB imports, UI probes (prints a table)"
	@echo "make facet-schemas   rewrite the custom OpenLineage facets' JSON Schemas in docs/facets/"
	@echo "make browser         install headless Chromium for the UI tests and bench when missing"
	@echo "make kafka           run an Apache Kafka broker on 127.0.0.1 (prints KAFKA_BOOTSTRAP=...; Ctrl-C stops it)"
	@echo "make java-jars       fetch the Kafka broker's and the OpenLineage Java client's jars with Maven, once (make test runs it)"
	@echo "make install         npm install, when package.json or package-lock.json changed"
	@echo "make deploy-check    build the image and run it, the Compose demo profile included, with Docker (opt-in; root; minutes)"
	@echo "make clean           remove dist/ and the install stamp"

# A first install takes minutes (better-sqlite3 is compiled where no prebuilt binary fits): a line
# says so first, and --foreground-scripts shows the packages' install scripts (the compile) as they run.
node_modules/.install-stamp: package.json $(wildcard package-lock.json)
	@echo "make: npm install (a first install takes a few minutes: better-sqlite3 may be compiled; its output follows)"
	npm install --no-audit --no-fund --foreground-scripts
	@touch $@

install: node_modules/.install-stamp

# The product only (tsconfig.build.json: no tests, no benchmarks, which run from source through
# tsx). `tsc --build` is incremental (state in dist/.tsbuildinfo) and returns at once when no
# source changed; the UI is rebuilt only when a file under ui/ is newer than its index.html.
UI_SOURCES := $(shell find ui -type f 2>/dev/null)

PRODUCT_DIST := dist/commands dist/src dist/projections dist/services dist/infra dist/simulators

# After tsc: compiled files whose source was moved or removed are deleted, so that dist/ (and the
# package, whose `files` lists these folders) holds only what the sources compile to.
build: install dist/ui/index.html
	npx tsc --build tsconfig.build.json
	@for compiled in $$(find $(PRODUCT_DIST) -name '*.js' 2>/dev/null); do \
	  source=$${compiled#dist/}; [ -e "$${source%.js}.ts" ] || rm -f "$$compiled" "$$compiled.map"; \
	done
	chmod +x dist/commands/*.js

dist/ui/index.html: $(UI_SOURCES) node_modules/.install-stamp
	$(MAKE) --no-print-directory ui

# The web UI (ui/, its own DOM tsconfig): typechecked, then bundled by Vite into dist/ui.
ui: install
	npx tsc -p ui/tsconfig.json
	npx vite build --config ui/vite.config.ts

# Headless Chromium for the UI tests and bench (Debian's chromium, installed when missing).
browser:
	@bash infra/ui/ensureBrowser.sh || echo "make: chromium could not be installed; the UI tests will be skipped"

typecheck: install
	npx tsc -p tsconfig.json --noEmit

# House rules: Prettier's format (.prettierrc.json: 120 columns) and no source line over 160
# characters (long strings and comments, which Prettier does not wrap). Then the OpenAPI document the
# API serves is written to a temporary file (the app built without listening) and linted by Redocly's
# CLI with redocly.yaml (the recommended rules, every warning an error; no usage data sent;
# test/http/openApiLint.test.ts runs the same lint). On Node 20, Redocly's CLI draws a boxed notice
# that its future releases will need Node 22.12: that box is replaced by one line saying so (the
# pinned @redocly/cli 2.77.0 supports Node 20, which package.json's engines allow); anything else
# it prints is shown as it is.
REDOCLY_NODE_NOTICE := make lint: Redocly CLI notes that its future releases need Node.js 22.12 or later; \
	the pinned @redocly/cli 2.77.0 runs on this Node (package.json engines: node >= 20.19)

lint: install
	npx prettier --check --log-level warn "**/*.ts"
	@long=$$(git ls-files '*.ts' | xargs awk 'length > 160 { print FILENAME ":" FNR }'); \
	  if [ -n "$$long" ]; then echo "lines over 160 characters:"; echo "$$long"; exit 1; fi
	@set -o pipefail; document=$$(mktemp --suffix=.json) && trap 'rm -f "$$document"' EXIT && \
	  node --import tsx infra/http/writeOpenApiDocument.ts "$$document" && \
	  REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true npx redocly lint --config redocly.yaml "$$document" 2>&1 | \
	  awk -v notice='$(REDOCLY_NODE_NOTICE)' \
	    '/╔/ { box = $$0 "\n"; next } box != "" { box = box $$0 "\n"; if (/╚/) { \
	      if (box ~ /Node\.js 20 support is ending/) print notice; else printf "%s", box; box = "" } next } { print }'

# The endpoint table of docs/api.md, generated from the OpenAPI document (test/http/openApiDocument.test.ts
# fails when the committed table differs from what this writes).
api-docs: install
	node --import tsx infra/http/writeOpenApiDocument.ts --api-docs docs/api.md

# Rewrites every TypeScript file in Prettier's format.
format: install
	npx prettier --write --log-level warn "**/*.ts"

# test/package/pack.test.ts installs the packed tarball only when LINEAGE_SVC_TEST_PACKAGE=1
# (it takes minutes: better-sqlite3 is compiled); `make package-check`, run by .ci/run, sets it.
# The Kafka test files share one broker, started beside the runner while the first files run
# (test/kafka/sharedBroker.ts); a file run alone starts its own.
test: build browser java-jars
	@if [ -z "$(TESTS)" ]; then echo "make test: no test files found under test/" >&2; exit 1; fi
	node --import tsx test/kafka/sharedBroker.ts $(NODE_TEST) $(TESTS)

# The Kafka tests, the OpenLineage Java client tests and the Helm chart test run Apache's, OpenLineage's and helm-java's jars, which
# Maven copies from Maven Central into ~/.cache/lineage-svc once (infra/kafka/maven.ts); without
# java and mvn this says so and those tests skip with a message.
JAVA_POMS := infra/kafka/broker/pom.xml test/java/openlineage/pom.xml test/java/helm/pom.xml

java-jars: install
	@if command -v java >/dev/null && command -v mvn >/dev/null; then node --import tsx infra/kafka/maven.ts $(JAVA_POMS); \
	  else echo "make: java or mvn not found: the Kafka and OpenLineage Java client tests will be skipped"; fi

# Apache Kafka in KRaft mode on free 127.0.0.1 ports (infra/kafka/broker.ts): prints KAFKA_BOOTSTRAP=...
# and the SASL_SSL listener's settings, runs until Ctrl-C, then removes its data.
kafka: install
	@node --import tsx infra/kafka/broker.ts

package-check: build
	LINEAGE_SVC_TEST_PACKAGE=1 $(NODE_TEST) test/package/pack.test.ts

# One file: make test-file FILE=test/store/contract.test.ts
test-file: install
	$(NODE_TEST) $(FILE)

demo: build
	node dist/commands/demo.js

# The whole stack: simulator, demo extraction into the sqlite store, API and UI; Ctrl-C stops it all.
serve: build
	node dist/commands/serve.js

# The benchmarks run compiled, so that no TypeScript loader weighs on the memory and start-up they
# measure (bench/run.ts writes results.json relative to dist/bench); tsconfig.bench.json compiles
# them beside the product, incrementally, without the tests.
bench: build browser
	npx tsc -p tsconfig.bench.json
	node --expose-gc dist/bench/run.js

# Issue 15: a 60 s 50-client load, SIGKILL loops during import and ingest on file, sqlite and
# PostgreSQL, and a full-disk run on a 2 MiB tmpfs (skipped with a notice where mount is not allowed).
soak: install
	node --import tsx bench/soak.ts

# After changing a custom OpenLineage facet: rewrite its published JSON Schema in docs/facets/.
facet-schemas: install
	node --import tsx infra/openlineage/writeFacetSchemas.ts

# Opt-in, not part of `make test`: installs Debian's docker.io and starts the engine when missing,
# builds the image with BuildKit (stand-in base images from Debian packages where no image registry
# is reachable), runs the API container and the Compose demo profile, checks them, tears down
# (infra/deploy/deployCheck.sh; docs/operations.md, "Checking a deployment for real").
deploy-check:
	bash infra/deploy/deployCheck.sh

clean:
	rm -rf dist node_modules/.install-stamp
