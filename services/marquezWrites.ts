/**
 * The writes of Marquez 0.51's API that Marquez Web makes (issue 25 item 3; docs/marquez.md,
 * "Writes"): tags on a dataset, a dataset's field or a job (`POST`/`DELETE .../tags/{tag}`), a tag
 * created with a description (`PUT /tags/{tag}`), and deleting a dataset or a job (`DELETE
 * /namespaces/{namespace}/datasets/{dataset}`, `.../jobs/{job}`).
 *
 * Each is an event on `marquez-annotations` (`MarquezTagAdded`, `MarquezTagRemoved`,
 * `MarquezTagDefined`, `MarquezElementDeleted`; `src/events.ts`), folded by the OpenLineage projection
 * into `state.marquez` (`projections/openLineage/evolve.ts`), which the Marquez reads show. A write
 * is decided against the projection caught up with the stream and appended with the stream's
 * revision as the expected revision (decided again when another writer came first), so a write that
 * changes nothing (a tag already there, a tag not there, the same description) records nothing. The
 * events carry `cause: marquez-api`, `actor: api` and one correlation id per request.
 *
 * Answers are Marquez's: the dataset or job as it is after the write (`deleted: true` for a deleted
 * dataset), or the tag list. An unknown (or deleted) dataset, job or field throws `NotFoundError` (404).
 */
import { randomUUID } from 'node:crypto';
import { ExpectedRevisionConflictError, NotFoundError } from '../src/errors.js';
import { streams, toAppend, type EventContext, type LineageEvent } from '../src/events.js';
import { datasetKey } from '../src/openlineage/identity.js';
import { marquezKey } from '../projections/openLineage/state.js';
import type { LineageRuntime } from './runtime.js';
import { marquezDataset, marquezJob, marquezTags, type MarquezRuntime } from './marquez.js';
import type { MarquezDataset, MarquezJob } from './marquezShapes.js';

/** What the writes need: the Marquez runtime and the projector, to wait for their events to be folded. */
export type MarquezWriteRuntime = MarquezRuntime & Pick<LineageRuntime, 'projector'>;

/** Times a write is decided again after another writer appended to the stream first, at most. */
const CONFLICT_RETRIES = 20;

/** Writes of one store, one after the other in this process (fewer expected-revision conflicts). */
const queues = new WeakMap<object, Promise<unknown>>();

/** Metadata of the events of one Marquez API request. */
function marquezContext(): EventContext {
  return { correlation_id: randomUUID(), cause: 'marquez-api', actor: 'api' };
}

/**
 * Decides the events of a write against the projection caught up with `marquez-annotations`, appends
 * them with the stream's revision as the expected revision and waits until they are folded; decides
 * again when another writer appended first. `decide` answering `[]` records nothing.
 */
async function record(runtime: MarquezWriteRuntime, decide: () => LineageEvent[]): Promise<void> {
  const work = async () => {
    const context = marquezContext();
    for (let attempt = 0; ; attempt += 1) {
      const revision = await runtime.store.streamRevision(streams.marquez);
      await runtime.projector.waitFor(await runtime.store.headPosition());
      const events = decide();
      if (events.length === 0) return;
      try {
        const result = await runtime.store.append(streams.marquez, toAppend(events, context), {
          expectedRevision: revision === -1 ? 'no_stream' : revision,
        });
        await runtime.projector.waitFor(result.position);
        return;
      } catch (error) {
        if (!(error instanceof ExpectedRevisionConflictError) || attempt >= CONFLICT_RETRIES) throw error;
      }
    }
  };
  const previous = queues.get(runtime.store) ?? Promise.resolve();
  const result = previous.then(work, work);
  queues.set(
    runtime.store,
    result.catch(() => undefined),
  );
  return result;
}

/** A dataset or job as Marquez's write paths name it. */
type Element = { element: 'dataset' | 'job'; namespace: string; name: string };

const keyOf = (element: Element) => marquezKey(element.element, datasetKey(element.namespace, element.name));

/** The event putting `tag` on (`add`) or taking it off the element or its `field`; none when `present` already says so. */
function tagEvents(
  element: Element,
  field: string | null,
  { tag, add }: { tag: string; add: boolean },
  present: boolean,
): LineageEvent[] {
  if (present === add) return [];
  const data = { ...element, field, tag };
  return [add ? { type: 'MarquezTagAdded', data } : { type: 'MarquezTagRemoved', data }];
}

/**
 * `POST` (add) or `DELETE` (remove) `/namespaces/{namespace}/datasets/{dataset}/tags/{tag}`, or with
 * `field`, `.../datasets/{dataset}/fields/{field}/tags/{tag}`: answers the dataset after the write.
 * @throws NotFoundError for an unknown or deleted dataset, or a field the dataset does not have.
 */
export async function marquezTagDataset(
  runtime: MarquezWriteRuntime,
  target: { namespace: string; name: string; field: string | null; tag: string; add: boolean },
): Promise<MarquezDataset> {
  const element: Element = { element: 'dataset', namespace: target.namespace, name: target.name };
  await record(runtime, () => {
    const dataset = marquezDataset(runtime, target.namespace, target.name);
    const { marquez } = runtime.openLineage.state;
    let present: boolean;
    if (target.field === null) present = marquez.tags.get(keyOf(element))?.has(target.tag) ?? false;
    else {
      if (!dataset.fields.some((field) => field.name === target.field))
        throw new NotFoundError(
          `dataset "${target.name}" in namespace "${target.namespace}" has no field "${target.field}"`,
        );
      present = marquez.fieldTags.get(keyOf(element))?.get(target.field)?.has(target.tag) ?? false;
    }
    return tagEvents(element, target.field, target, present);
  });
  return marquezDataset(runtime, target.namespace, target.name);
}

/**
 * `POST` (add) or `DELETE` (remove) `/namespaces/{namespace}/jobs/{job}/tags/{tag}`: answers the job
 * after the write. @throws NotFoundError for an unknown or deleted job.
 */
export async function marquezTagJob(
  runtime: MarquezWriteRuntime,
  target: { namespace: string; name: string; tag: string; add: boolean },
): Promise<MarquezJob> {
  const element: Element = { element: 'job', namespace: target.namespace, name: target.name };
  await record(runtime, () => {
    marquezJob(runtime, target.namespace, target.name);
    const present = runtime.openLineage.state.marquez.tags.get(keyOf(element))?.has(target.tag) ?? false;
    return tagEvents(element, null, target, present);
  });
  return marquezJob(runtime, target.namespace, target.name);
}

/** `PUT /tags/{tag}`: creates the tag, or changes its description; answers every tag (Marquez's `TagList`). */
export async function marquezDefineTag(
  runtime: MarquezWriteRuntime,
  tag: string,
  description: string | null,
): Promise<{ tags: Array<{ name: string; description: string }> }> {
  await record(runtime, () => {
    const { definitions } = runtime.openLineage.state.marquez;
    if (definitions.has(tag) && definitions.get(tag) === description) return [];
    return [{ type: 'MarquezTagDefined', data: { tag, description } }];
  });
  return marquezTags(runtime, { limit: Number.MAX_SAFE_INTEGER, offset: 0 });
}

/**
 * `DELETE /namespaces/{namespace}/datasets/{dataset}`: hides the dataset from the Marquez reads until
 * a later OpenLineage event names it (Marquez's soft delete); answers it as it was, `deleted: true`.
 * @throws NotFoundError for an unknown or already deleted dataset.
 */
export async function marquezDeleteDataset(
  runtime: MarquezWriteRuntime,
  namespace: string,
  name: string,
): Promise<MarquezDataset> {
  return { ...(await deleteElement(runtime, { element: 'dataset', namespace, name }, marquezDataset)), deleted: true };
}

/**
 * `DELETE /namespaces/{namespace}/jobs/{job}`: hides the job from the Marquez reads until a later
 * OpenLineage event names it; answers it as it was. @throws NotFoundError for an unknown or already deleted job.
 */
export async function marquezDeleteJob(
  runtime: MarquezWriteRuntime,
  namespace: string,
  name: string,
): Promise<MarquezJob> {
  return deleteElement(runtime, { element: 'job', namespace, name }, marquezJob);
}

/**
 * Records `MarquezElementDeleted` for a dataset or job, read by `read` (which throws `NotFoundError`
 * for an unknown or deleted one) when the write is decided; answers it as it was then.
 */
async function deleteElement<T>(
  runtime: MarquezWriteRuntime,
  element: Element,
  read: (runtime: MarquezRuntime, namespace: string, name: string) => T,
): Promise<T> {
  let last: T | undefined;
  await record(runtime, () => {
    last = read(runtime, element.namespace, element.name);
    return [{ type: 'MarquezElementDeleted', data: element }];
  });
  return last!;
}
