/**
 * A prepare worker of the OpenLineage Kafka transport (`openLineagePrepare.ts`): answers each
 * `PrepareRequest` (record values packed in one transferred buffer) with `prepareRecord` on each value,
 * in order. Stateless; the pool starts and stops it.
 */
import { parentPort } from 'node:worker_threads';
import { errorMessage } from '../../src/errors.js';
import {
  prepareRecord,
  unpackValues,
  withoutData,
  type PrepareReply,
  type PrepareRequest,
} from './openLineagePrepare.js';

if (parentPort) {
  const port = parentPort;
  port.on('message', ({ id, values }: PrepareRequest) => {
    let reply: PrepareReply;
    try {
      // Without `data`: copying the value back costs what the parse it would save does.
      reply = { id, records: unpackValues(values).map((value) => withoutData(prepareRecord(value))) };
    } catch (error) {
      reply = { id, error: errorMessage(error) };
    }
    port.postMessage(reply);
  });
}
