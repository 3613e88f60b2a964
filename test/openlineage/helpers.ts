/**
 * Shared setup of the OpenLineage tests: a memory store, the graph projection, the OpenLineage
 * projection joining it, a projector and an ingestor over them, and the graph commands' dependencies
 * (as `infra/runtime.ts` wires them), the fixture folder beside the repository
 * (`FIXTURES`, never copied into the project; tests that need it skip without it), and the list of
 * complete (`FULL`) event files from its SOURCES.md.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { createMemoryEventStore } from '../../infra/eventStore/memoryEventStore.js';
import { createGraphProjection, graphStateSource, type GraphProjection } from '../../projections/graphProjection.js';
import { createOpenLineageProjection, type OpenLineageProjection } from '../../projections/openLineage/index.js';
import { createProjector, type Projector } from '../../projections/projector.js';
import type { EventStore } from '../../src/eventStore.js';
import type { GraphCommandDeps } from '../../src/graphCommands.js';
import {
  createOpenLineageIngestor,
  type IngestionResult,
  type OpenLineageIngestor,
} from '../../src/openlineage/ingestion.js';

/** The OpenLineage fixture folder beside the repository. */
export const FIXTURES = path.resolve(import.meta.dirname, '../../../shared/fixtures/openlineage');

/** Skips the test when the fixture folder (or a file in it) is absent; returns true when present. */
export function fixturesPresent(t: TestContext, relative = ''): boolean {
  const where = path.join(FIXTURES, relative);
  if (!existsSync(where)) {
    t.skip(`OpenLineage fixtures not found: ${where}`);
    return false;
  }
  return true;
}

/** Reads a fixture JSON file. */
export function readFixture(relative: string): unknown {
  return JSON.parse(readFileSync(path.join(FIXTURES, relative), 'utf8'));
}

/** `events/<dir>/<file>` of every row whose kind is FULL in SOURCES.md. */
export function completeEventFiles(): string[] {
  const text = readFileSync(path.join(FIXTURES, 'SOURCES.md'), 'utf8');
  const files: string[] = [];
  let dir: string | null = null;
  for (const line of text.split('\n')) {
    const header = /^### events\/([^/]+)\//.exec(line);
    if (header) {
      dir = header[1]!;
      continue;
    }
    if (/^##? /.test(line) && !line.startsWith('### events/')) dir = line.startsWith('### ') ? null : dir;
    const row = /^\| `([^`]+\.json)` \|[^|]*\|[^|]*\|[^|]*\| (\w+) \|/.exec(line);
    if (dir !== null && row && row[2] === 'FULL') files.push(`events/${dir}/${row[1]}`);
  }
  return files;
}

/**
 * A memory store, a started projector over a graph projection and an OpenLineage projection that
 * joins it, an ingestor deduping against the OpenLineage projection, the graph commands' dependencies
 * (`commands`, for `recordGraph`), and `ingest`, which ingests and waits for the projection to fold the result.
 */
export async function setup(t: TestContext): Promise<{
  store: EventStore;
  graphs: GraphProjection;
  commands: GraphCommandDeps;
  projection: OpenLineageProjection;
  projector: Projector;
  ingestor: OpenLineageIngestor;
  ingest: (bodies: unknown[]) => Promise<IngestionResult[]>;
  sync: () => Promise<void>;
}> {
  const store = createMemoryEventStore({ now: () => new Date('2026-01-01T00:00:00.000Z') });
  const graphs = createGraphProjection();
  const projection = createOpenLineageProjection({ graphs });
  const projector = createProjector({ store, projections: [graphs, projection] });
  await projector.start();
  t.after(async () => {
    await projector.stop();
    await store.close();
  });
  const ingestor = createOpenLineageIngestor({ store, dedupeIndex: projection });
  const sync = async () => projector.waitFor(await store.headPosition());
  return {
    store,
    graphs,
    commands: { store, state: graphStateSource(graphs, projector, store) },
    projection,
    projector,
    ingestor,
    sync,
    async ingest(bodies) {
      const results = await ingestor.ingest(bodies, { actor: 'test' });
      await sync();
      return results;
    },
  };
}

/** A minimal valid RunEvent. */
export function runEvent(fields: {
  job: string;
  namespace?: string;
  runId?: string;
  eventType?: string;
  eventTime?: string;
  inputs?: Array<{ namespace: string; name: string; facets?: Record<string, unknown> }>;
  outputs?: Array<{ namespace: string; name: string; facets?: Record<string, unknown> }>;
}): Record<string, unknown> {
  return {
    eventTime: fields.eventTime ?? '2026-01-01T00:00:00.000Z',
    eventType: fields.eventType ?? 'COMPLETE',
    producer: 'https://example.com/producer',
    schemaURL: 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent',
    run: { runId: fields.runId ?? '0190a1b2-0000-7000-8000-000000000001' },
    job: { namespace: fields.namespace ?? 'jobs', name: fields.job },
    inputs: fields.inputs ?? [],
    outputs: fields.outputs ?? [],
  };
}
