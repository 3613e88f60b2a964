/**
 * The Kafka bench's producer (`bench/kafka.ts`), in a process of its own, so that the API process is
 * measured alone, as in production: producing 200,000 events with kafkajs cost the measured process
 * CPU time, and its sends waited behind the consumer on one event loop, which distorted the
 * visibility phase.
 *
 * `startBenchProducer(bootstrap, topic)` forks this file (with the parent's `execArgv` but `--cpu-prof`,
 * so that it runs from source under tsx and compiled in `dist/`); the child connects a kafkajs producer
 * and answers two commands over the IPC channel:
 * - `backlog`: produces events `from` to `to` of run-id prefix `prefix` in sends of 1,000 (`acks: -1`),
 *   then answers `done`;
 * - `live`: produces them in sends of `send`, paced at `rate` events per second, and answers `acked`
 *   after each send with its last index and the acknowledgement time (`performance.timeOrigin +
 *   performance.now()`, milliseconds since the epoch, so that the parent can compare it with its own
 *   clock whatever its event loop is doing), then `done`.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { Kafka, logLevel, type Producer } from 'kafkajs';

/** A RunEvent's run id: `prefix` keeps the bench's phases apart, `n` numbers the event. */
export const uuidOf = (prefix: number, n: number) =>
  `0190a1b2-${prefix.toString(16).padStart(4, '0')}-7000-8000-${n.toString(16).padStart(12, '0')}`;

/**
 * A RunEvent of its own run (`prefix` keeps the phases apart); its job is one of 1,000 and its input
 * and output one of 500 datasets each, as real OpenLineage streams repeat the same jobs.
 */
export function runEvent(prefix: number, index: number) {
  return {
    eventTime: new Date(1_767_225_600_000 + index).toISOString(),
    eventType: 'COMPLETE',
    producer: 'https://github.com/OpenLineage/OpenLineage/tree/1.55.0/client/java',
    schemaURL: 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent',
    run: { runId: uuidOf(prefix, index) },
    job: { namespace: 'bench', name: `job-${index % 1000}` },
    inputs: [{ namespace: 'kafka://bench:9092', name: `in-${index % 500}` }],
    outputs: [{ namespace: 'kafka://bench:9092', name: `out-${index % 500}` }],
  };
}

/** A command to the producer process. */
type ProducerCommand =
  | { command: 'backlog'; prefix: number; from: number; to: number }
  | { command: 'live'; prefix: number; from: number; to: number; send: number; rate: number };

/** A message of the producer process. */
type ProducerMessage =
  | { type: 'ready' }
  | { type: 'acked'; last: number; at: number }
  | { type: 'done' }
  | { type: 'error'; message: string };

/** The producer process, seen from the bench. */
export interface BenchProducer {
  /** Produces events `from` to `to` (exclusive) of run-id prefix `prefix` in sends of 1,000; resolves once all are acknowledged. */
  backlog(prefix: number, from: number, to: number): Promise<void>;
  /**
   * Produces events `from` to `to` in sends of `send`, paced at `rate` events per second; calls `acked`
   * after each send with its last index and when it was acknowledged (a `performance.now()` of this process).
   */
  live(
    prefix: number,
    from: number,
    to: number,
    send: number,
    rate: number,
    acked: (last: number, at: number) => void,
  ): Promise<void>;
  /** Disconnects the producer and waits for the process to exit. */
  stop(): Promise<void>;
}

/** Forks the producer process on `bootstrap` for `topic`; resolves once its producer is connected. */
export async function startBenchProducer(bootstrap: string, topic: string): Promise<BenchProducer> {
  const child: ChildProcess = fork(import.meta.filename, ['child', bootstrap, topic], {
    execArgv: process.execArgv.filter((argument) => !argument.startsWith('--cpu-prof')),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let listener: ((message: ProducerMessage) => void) | undefined;
  let failure: Error | undefined;
  child.on('message', (message: ProducerMessage) => listener?.(message));
  child.on('exit', (code) => {
    failure = new Error(`the bench's producer process exited (code ${code})`);
    listener?.({ type: 'error', message: failure.message });
  });
  const exchange = (command: ProducerCommand | undefined, acked?: (last: number, at: number) => void) =>
    new Promise<void>((resolve, reject) => {
      if (failure) return reject(failure);
      listener = (message) => {
        if (message.type === 'acked') acked?.(message.last, message.at - performance.timeOrigin);
        else if (message.type === 'error') reject(new Error(message.message));
        else resolve();
      };
      if (command) child.send(command);
    });
  await exchange(undefined);
  return {
    backlog: (prefix, from, to) => exchange({ command: 'backlog', prefix, from, to }),
    live: (prefix, from, to, send, rate, acked) => exchange({ command: 'live', prefix, from, to, send, rate }, acked),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.disconnect();
      await exited;
    },
  };
}

/** Produces events `from` to `to` (exclusive) in sends of `chunk`; calls `acked` after each send with its last index. */
async function produce(
  producer: Producer,
  topic: string,
  prefix: number,
  from: number,
  to: number,
  chunk: number,
  acked?: (last: number) => void,
) {
  for (let start = from; start < to; start += chunk) {
    const end = Math.min(to, start + chunk);
    const messages = [];
    for (let index = start; index < end; index += 1) {
      messages.push({ key: `run:bench/job-${index % 1000}`, value: JSON.stringify(runEvent(prefix, index)) });
    }
    await producer.send({ topic, acks: -1, messages });
    acked?.(end - 1);
  }
}

/** The child's side: a connected producer answering commands until the channel closes. */
async function child(bootstrap: string, topic: string): Promise<void> {
  const kafka = new Kafka({ clientId: 'bench-producer', brokers: [bootstrap], logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  await producer.connect();
  const send = (message: ProducerMessage) => process.send!(message);
  process.on('disconnect', () => void producer.disconnect().finally(() => process.exit(0)));
  process.on('message', (command: ProducerCommand) => {
    void (async () => {
      if (command.command === 'backlog') {
        await produce(producer, topic, command.prefix, command.from, command.to, 1000);
      } else {
        const started = performance.now();
        for (let start = command.from; start < command.to; start += command.send) {
          // Paced: this send leaves when the rate says, not before.
          const due = started + ((start - command.from) / command.rate) * 1000;
          if (due > performance.now()) await new Promise((resolve) => setTimeout(resolve, due - performance.now()));
          await produce(
            producer,
            topic,
            command.prefix,
            start,
            Math.min(command.to, start + command.send),
            command.send,
            (last) => send({ type: 'acked', last, at: performance.timeOrigin + performance.now() }),
          );
        }
      }
      send({ type: 'done' });
    })().catch((error: unknown) =>
      send({ type: 'error', message: error instanceof Error ? error.message : String(error) }),
    );
  });
  send({ type: 'ready' });
}

if (process.argv[1] === import.meta.filename && process.argv[2] === 'child')
  await child(process.argv[3]!, process.argv[4]!);
