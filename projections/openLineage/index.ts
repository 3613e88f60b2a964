/**
 * The OpenLineage projection (docs/openlineage.md, "Queries" and "Identity"), as state, fold and
 * queries, like `projections/graphProjection.ts`:
 *
 * | file | holds |
 * |---|---|
 * | `state.ts` | `OpenLineageState`, `initialOpenLineageState()` |
 * | `evolve.ts` | `evolveOpenLineage(state, event)`, the fold |
 * | `events.ts` | `queryEvents`, `eventsOfRun` (`GET /lineage/events`, `/lineage/events/{run_id}`) |
 * | `datasets.ts` | `listDatasets`, `datasetDetail` (`GET /lineage/datasets`, `/lineage/datasets/detail`) |
 * | `jobs.ts` | `listJobs`, `jobDetail` (`GET /lineage/jobs`, `/lineage/jobs/detail`) |
 * | `datasetLineage.ts` | `datasetLineage` (`GET /lineage/datasets/lineage`) |
 * | `extracted.ts` | `graphJoin`: the extracted graphs' jobs and datasets, joined by the queries above |
 * | `projection.ts` | `createOpenLineageProjection()`, what the projector drives |
 */
export {
  initialOpenLineageState,
  type DatasetState,
  type EventRecord,
  type JobState,
  type OpenLineageState,
} from './state.js';
export { evolveOpenLineage } from './evolve.js';
export { eventsOfRun, queryEvents, type EventQuery } from './events.js';
export { datasetDetail, listDatasets, type DatasetDetail, type DatasetSummary } from './datasets.js';
export { jobDetail, listJobs, type JobDetail, type JobSummary } from './jobs.js';
export {
  DEFAULT_LINEAGE_DEPTH,
  LINEAGE_DIRECTIONS,
  MAX_LINEAGE_DEPTH,
  datasetLineage,
  type DatasetLineageQuery,
  type DatasetLineageResult,
  type LineageDirection,
} from './datasetLineage.js';
export {
  createGraphJoinCache,
  graphJoin,
  type ExtractedDataset,
  type ExtractedGraphs,
  type ExtractedJob,
  type GraphJoin,
  type GraphJoinCache,
} from './extracted.js';
export {
  createOpenLineageProjection,
  type OpenLineageProjection,
  type OpenLineageProjectionOptions,
} from './projection.js';
