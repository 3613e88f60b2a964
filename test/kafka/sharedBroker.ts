/**
 * One Apache Kafka broker for every test file of a run (`make test`): runs a command (the test
 * runner) with `LINEAGE_SVC_TEST_KAFKA_BROKER_FILE` set to a file this process writes once the broker
 * serves, and starts the broker meanwhile, so that its start overlaps the test files that come before
 * the Kafka ones. The file holds the broker's addresses (`SharedBrokerFile`), or why it could not
 * start; `useKafkaBroker` (./helpers.ts) waits for it. Each test file uses topics of its own. A file
 * run alone (no variable) starts a broker of its own, as before.
 *
 * Usage: `node --import tsx test/kafka/sharedBroker.ts {command} {arguments...}`; exits with the
 * command's exit code, after stopping the broker and removing the file. Without `java` and `mvn` it
 * runs the command alone (the Kafka tests skip, saying why).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  kafkaBrokerSkipReason,
  QUICK_START_FLAGS,
  startKafkaBroker,
  type KafkaBroker,
} from '../../infra/kafka/broker.js';

/** The variable naming the file of the shared broker. */
export const SHARED_BROKER_VARIABLE = 'LINEAGE_SVC_TEST_KAFKA_BROKER_FILE';

/** What the file holds: the running broker's addresses, or the error of its start. */
export type SharedBrokerFile =
  | {
      broker: Pick<
        KafkaBroker,
        | 'bootstrap'
        | 'saslBootstrap'
        | 'certificatePem'
        | 'certificateFile'
        | 'trustStore'
        | 'trustStorePassword'
        | 'logFile'
      >;
    }
  | { error: string };

/** Writes `content` to `file` at once (a reader never sees half of it). */
function writeAtomically(file: string, content: SharedBrokerFile): void {
  writeFileSync(`${file}.partial`, JSON.stringify(content));
  renameSync(`${file}.partial`, file);
}

async function main(command: string[]): Promise<number> {
  if (command.length === 0) {
    console.error('usage: sharedBroker.ts {command} {arguments...}');
    return 2;
  }
  const skip = await kafkaBrokerSkipReason();
  const folder = mkdtempSync(join(tmpdir(), 'lineage-svc-shared-kafka-'));
  const file = join(folder, 'broker.json');
  const env = skip ? process.env : { ...process.env, [SHARED_BROKER_VARIABLE]: file };
  const child = spawn(command[0]!, command.slice(1), { stdio: 'inherit', env });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  let broker: KafkaBroker | undefined;
  const started = skip
    ? Promise.resolve()
    : startKafkaBroker({ jvmFlags: QUICK_START_FLAGS }).then(
        (running) => {
          broker = running;
          const { bootstrap, saslBootstrap, certificatePem, certificateFile, trustStore, trustStorePassword, logFile } =
            running;
          writeAtomically(file, {
            broker: {
              bootstrap,
              saslBootstrap,
              certificatePem,
              certificateFile,
              trustStore,
              trustStorePassword,
              logFile,
            },
          });
        },
        (error: unknown) => writeAtomically(file, { error: error instanceof Error ? error.message : String(error) }),
      );
  const code = await new Promise<number>((resolve) =>
    child.once('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0))),
  );
  await started;
  await broker?.stop();
  rmSync(folder, { recursive: true, force: true });
  return code;
}

if (process.argv[1] && import.meta.filename === process.argv[1]) process.exitCode = await main(process.argv.slice(2));
