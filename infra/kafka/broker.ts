/**
 * A real Apache Kafka broker on 127.0.0.1 for the tests, the benchmarks and `make kafka`: Apache's own
 * jars (`infra/kafka/broker/pom.xml`, Apache Kafka `KAFKA_VERSION`, resolved from Maven Central by
 * Maven into a cache folder once: `maven.ts`), run in KRaft combined mode (one process is broker and
 * controller; no ZooKeeper) with `java -Xmx512m -cp {jars} kafka.Kafka server.properties`.
 *
 * Each broker lives in a temporary folder (`server.properties`, the log4j configuration, the
 * `kafka.log` it writes, its data, its TLS key store) that `stop()` removes after a clean shutdown
 * (SIGTERM, then SIGKILL after 30 s). Ports are free ephemeral ports of 127.0.0.1, chosen at start.
 *
 * Listeners:
 * - `PLAINTEXT` (`bootstrap`): no authentication; the principal is `User:ANONYMOUS`, a super user;
 * - `SASL_SSL` (`saslBootstrap`): SASL/PLAIN over TLS with a self-signed certificate for 127.0.0.1
 *   (made by the JDK's `keytool`; its PEM is `certificatePem`, to trust in clients). User
 *   `SASL_USER` is a super user; user `OUTSIDER_USER` authenticates but holds no ACL, so that
 *   authorization failures can be met (the broker runs the KRaft `StandardAuthorizer`);
 * - `CONTROLLER`: the KRaft controller, internal.
 *
 * Run as a program (`make kafka`), it prints `KAFKA_BOOTSTRAP=127.0.0.1:{port}` (and the SASL
 * listener's settings) and runs until SIGINT or SIGTERM.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { javaToolsMissing, mavenClasspath } from './maven.js';

const run = promisify(execFile);

/** The Apache Kafka release the broker runs (also the pom's `kafka.version`). */
export const KAFKA_VERSION = '3.9.1';
/** The pom listing the broker's jars (beside this file in the checkout; from `dist/infra/kafka/`, the checkout's). */
export const BROKER_POM =
  [
    join(import.meta.dirname, 'broker', 'pom.xml'),
    join(import.meta.dirname, '..', '..', '..', 'infra', 'kafka', 'broker', 'pom.xml'),
  ].find((path) => existsSync(path)) ?? join(import.meta.dirname, 'broker', 'pom.xml');
/** The SASL/PLAIN user with every right. */
export const SASL_USER = { username: 'lineage-svc', password: 'lineage-svc-secret' } as const;
/** A SASL/PLAIN user that authenticates but is granted nothing (authorization failures). */
export const OUTSIDER_USER = { username: 'outsider', password: 'outsider-secret' } as const;

/** Options of `startKafkaBroker`. */
export interface KafkaBrokerOptions {
  /** Java heap (`-Xmx`), default `512m`. */
  heap?: string;
  /** Default partitions of auto-created topics (default 1). */
  defaultPartitions?: number;
  /**
   * More JVM flags of the broker (after the defaults). The tests pass `QUICK_START_FLAGS`: on a
   * loaded 2-core machine the broker starts in about half the time, at a lower peak throughput.
   */
  jvmFlags?: string[];
}

/** A running broker. */
export interface KafkaBroker {
  /** `127.0.0.1:{port}` of the PLAINTEXT listener. */
  readonly bootstrap: string;
  /** `127.0.0.1:{port}` of the SASL_SSL listener (SASL/PLAIN). */
  readonly saslBootstrap: string;
  /** The PEM of the SASL_SSL listener's self-signed certificate (CN and IP SAN 127.0.0.1). */
  readonly certificatePem: string;
  /** Path of a file holding `certificatePem` (for `NODE_EXTRA_CA_CERTS` or Java trust stores). */
  readonly certificateFile: string;
  /** Path of the PKCS12 trust store holding the certificate (password `trustStorePassword`), for Java clients. */
  readonly trustStore: string;
  readonly trustStorePassword: string;
  /** The broker's log file (log4j), inside the temporary folder. */
  readonly logFile: string;
  /** Process id of the broker's JVM (while it runs). */
  readonly pid: number | undefined;
  /** Stops the broker (SIGTERM; SIGKILL after 30 s) and starts it again on the same ports and data. */
  restart(): Promise<void>;
  /** Stops the broker without removing its data (a broker down); `start()` brings it back. */
  halt(): Promise<void>;
  /** Starts a halted broker again on the same ports and data. */
  start(): Promise<void>;
  /** Stops the broker and removes its temporary folder. Idempotent. */
  stop(): Promise<void>;
}

/** A free TCP port of 127.0.0.1 (bound to port 0, read, released). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/**
 * Why no broker can be started here, or false: `java` or `mvn` missing, or Maven unable to fetch the
 * jars. The tests print it when they skip.
 */
export async function kafkaBrokerSkipReason(): Promise<string | false> {
  const missing = await javaToolsMissing();
  if (missing) return `no Kafka broker: ${missing}`;
  try {
    await kafkaClasspath();
    return false;
  } catch (error) {
    return `no Kafka broker: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** The broker's jars, fetched by Maven the first time. @throws when Maven fails. */
export async function kafkaClasspath(): Promise<string[]> {
  return mavenClasspath(BROKER_POM);
}

/** JVM flags for a quicker start (the C1 compiler only) rather than peak speed: the tests' brokers. */
export const QUICK_START_FLAGS = ['-XX:TieredStopAtLevel=1'];

/** JVM flags of short tool runs (keytool, the storage format): quick start rather than peak speed. */
const SHORT_RUN = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];

const LOG4J = `log4j.rootLogger=INFO, file
log4j.appender.file=org.apache.log4j.FileAppender
log4j.appender.file.File=\${kafka.logs.dir}/kafka.log
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.request.logger=WARN
log4j.logger.org.apache.kafka.storage.internals.log=WARN
log4j.logger.kafka.log=WARN
log4j.logger.state.change.logger=WARN
`;

/** The broker's `server.properties`. */
function serverProperties(
  folder: string,
  ports: { plain: number; sasl: number; controller: number },
  partitions: number,
) {
  const jaas =
    'org.apache.kafka.common.security.plain.PlainLoginModule required ' +
    `username="${SASL_USER.username}" password="${SASL_USER.password}" ` +
    `user_${SASL_USER.username}="${SASL_USER.password}" user_${OUTSIDER_USER.username}="${OUTSIDER_USER.password}";`;
  return [
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@127.0.0.1:${ports.controller}`,
    `listeners=PLAINTEXT://127.0.0.1:${ports.plain},SASL_SSL://127.0.0.1:${ports.sasl},CONTROLLER://127.0.0.1:${ports.controller}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${ports.plain},SASL_SSL://127.0.0.1:${ports.sasl}`,
    'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL,CONTROLLER:PLAINTEXT',
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    'sasl.enabled.mechanisms=PLAIN',
    `listener.name.sasl_ssl.plain.sasl.jaas.config=${jaas}`,
    `ssl.keystore.location=${join(folder, 'broker.p12')}`,
    'ssl.keystore.type=PKCS12',
    'ssl.keystore.password=lineage-svc-broker',
    'ssl.key.password=lineage-svc-broker',
    'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer',
    `super.users=User:ANONYMOUS;User:${SASL_USER.username}`,
    `log.dirs=${join(folder, 'data')}`,
    `num.partitions=${partitions}`,
    'auto.create.topics.enable=true',
    'offsets.topic.replication.factor=1',
    'offsets.topic.num.partitions=1',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'transaction.state.log.num.partitions=1',
    'group.initial.rebalance.delay.ms=0',
    'delete.topic.enable=true',
    '',
  ].join('\n');
}

/** A self-signed key pair for 127.0.0.1 (JDK keytool): the broker's key store, a trust store and the PEM. */
async function makeCertificate(folder: string): Promise<{ pem: string; pemFile: string; trustStore: string }> {
  const keyStore = join(folder, 'broker.p12');
  const common = [
    ...SHORT_RUN.map((flag) => `-J${flag}`),
    '-storetype',
    'PKCS12',
    '-storepass',
    'lineage-svc-broker',
    '-noprompt',
  ];
  await run('keytool', [
    '-genkeypair',
    ...common,
    '-keystore',
    keyStore,
    '-alias',
    'broker',
    '-keyalg',
    'RSA',
    '-keysize',
    '2048',
    '-validity',
    '7',
    '-dname',
    'CN=127.0.0.1',
    '-ext',
    'SAN=ip:127.0.0.1,dns:localhost',
  ]);
  const { stdout: pem } = await run('keytool', [
    '-exportcert',
    '-rfc',
    ...common,
    '-keystore',
    keyStore,
    '-alias',
    'broker',
  ]);
  const pemFile = join(folder, 'broker.pem');
  writeFileSync(pemFile, pem);
  const trustStore = join(folder, 'truststore.p12');
  await run('keytool', ['-importcert', ...common, '-keystore', trustStore, '-alias', 'broker', '-file', pemFile]);
  return { pem, pemFile, trustStore };
}

/** The last `count` lines of a file ('' when absent). */
function tail(file: string, count = 20): string {
  if (!existsSync(file)) return '';
  return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-count).join('\n');
}

/** Waits until the broker logged that it started, or fails with its last log lines when the JVM exits first. */
async function waitUntilStarted(child: ChildProcess, logFile: string, from: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(
        `the Kafka broker exited (${child.exitCode ?? child.signalCode}) while starting:\n${tail(logFile)}`,
      );
    if (existsSync(logFile) && readFileSync(logFile, 'utf8').slice(from).includes('Kafka Server started')) return;
    if (Date.now() > deadline)
      throw new Error(`the Kafka broker did not start within ${timeoutMs} ms:\n${tail(logFile)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** SIGTERM, wait for the exit; SIGKILL after `graceMs`. */
async function terminate(child: ChildProcess, graceMs = 30_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/**
 * Starts a broker on free ports of 127.0.0.1 and waits until it serves (formats its storage first:
 * `kafka.tools.StorageTool format` with a random cluster id). The JVM is killed if this process exits
 * without stopping it.
 * @throws when `java`, `keytool` or `mvn` is missing, Maven cannot fetch the jars, or the broker does
 *   not start within 60 s (the message ends with its last log lines)
 */
export async function startKafkaBroker(options: KafkaBrokerOptions = {}): Promise<KafkaBroker> {
  const classpath = (await kafkaClasspath()).join(':');
  const folder = mkdtempSync(join(tmpdir(), 'lineage-svc-kafka-'));
  try {
    const [plain, sasl, controller] = [await freePort(), await freePort(), await freePort()];
    const properties = join(folder, 'server.properties');
    writeFileSync(properties, serverProperties(folder, { plain, sasl, controller }, options.defaultPartitions ?? 1));
    writeFileSync(join(folder, 'log4j.properties'), LOG4J);
    mkdirSync(join(folder, 'data'));
    const logFile = join(folder, 'kafka.log');
    const jvm = [
      `-Xmx${options.heap ?? '512m'}`,
      '-Djava.awt.headless=true',
      `-Dkafka.logs.dir=${folder}`,
      `-Dlog4j.configuration=file:${join(folder, 'log4j.properties')}`,
      ...(options.jvmFlags ?? []),
      '-cp',
      classpath,
    ];
    // Like Kafka's Uuid.randomUuid: never one that starts with '-' (the tool would read it as a flag).
    let clusterId = randomBytes(16).toString('base64url');
    while (clusterId.startsWith('-')) clusterId = randomBytes(16).toString('base64url');
    // The key pair and the storage format are independent JVM runs: side by side.
    const [certificate] = await Promise.all([
      makeCertificate(folder),
      run(
        'java',
        [
          ...SHORT_RUN,
          ...jvm,
          'kafka.tools.StorageTool',
          'format',
          `--cluster-id=${clusterId}`,
          `--config=${properties}`,
        ],
        {
          timeout: 120_000,
        },
      ).catch((error: { stderr?: string; message: string }) => {
        throw new Error(`the Kafka storage format failed: ${error.stderr?.trim() || error.message}`);
      }),
    ]);
    let child: ChildProcess | undefined;
    // This process exits without stop(): kill the JVM and remove its folder all the same.
    const killOnExit = () => {
      child?.kill('SIGKILL');
      rmSync(folder, { recursive: true, force: true });
    };
    process.once('exit', killOnExit);
    const launch = async () => {
      const from = existsSync(logFile) ? readFileSync(logFile, 'utf8').length : 0;
      child = spawn('java', [...jvm, 'kafka.Kafka', properties], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4000)));
      await waitUntilStarted(child, logFile, from, 60_000).catch((error: Error) => {
        child?.kill('SIGKILL');
        throw new Error(`${error.message}${stderr ? `\n${stderr}` : ''}`);
      });
    };
    await launch();
    let stopped = false;
    const broker: KafkaBroker = {
      bootstrap: `127.0.0.1:${plain}`,
      saslBootstrap: `127.0.0.1:${sasl}`,
      certificatePem: certificate.pem,
      certificateFile: certificate.pemFile,
      trustStore: certificate.trustStore,
      trustStorePassword: 'lineage-svc-broker',
      logFile,
      get pid() {
        return child?.exitCode === null && child.signalCode === null ? child.pid : undefined;
      },
      async halt() {
        if (child) await terminate(child);
      },
      async start() {
        if (child && child.exitCode === null && child.signalCode === null) return;
        await launch();
      },
      async restart() {
        await broker.halt();
        await launch();
      },
      async stop() {
        if (stopped) return;
        stopped = true;
        if (child) await terminate(child);
        process.removeListener('exit', killOnExit);
        rmSync(folder, { recursive: true, force: true });
      },
    };
    return broker;
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
}

/** `make kafka`: starts a broker, prints how to reach it, runs until SIGINT or SIGTERM. */
async function main(): Promise<number> {
  const reason = await javaToolsMissing();
  if (reason) {
    console.error(`make kafka: ${reason}`);
    return 2;
  }
  console.error(`make kafka: starting Apache Kafka ${KAFKA_VERSION} (jars fetched by Maven the first time)...`);
  let broker: KafkaBroker;
  try {
    broker = await startKafkaBroker();
  } catch (error) {
    console.error(`make kafka: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  console.log(`KAFKA_BOOTSTRAP=${broker.bootstrap}`);
  console.log(`KAFKA_SASL_SSL_BOOTSTRAP=${broker.saslBootstrap}`);
  console.log(`KAFKA_SASL_USERNAME=${SASL_USER.username}`);
  console.log(`KAFKA_SASL_PASSWORD=${SASL_USER.password}`);
  console.log(`KAFKA_CA_FILE=${broker.certificateFile}`);
  console.error(`make kafka: broker log in ${broker.logFile}; Ctrl-C stops it and removes its data`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  console.error('make kafka: stopping');
  await broker.stop();
  return 0;
}

if (process.argv[1] && import.meta.filename === process.argv[1]) process.exitCode = await main();
