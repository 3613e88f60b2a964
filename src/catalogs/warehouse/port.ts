/**
 * The warehouse catalog's port: the Google APIs as the warehouse provider uses them (BigQuery
 * `tables.get`, the Data Lineage API's `processOpenLineageRunEvent`, `searchLinks`,
 * `batchSearchLinkProcesses` and `processes.get`, Dataplex Catalog), the shapes it
 * reads from them, and how their failures are told apart. Implemented over HTTP by
 * `infra/catalogs/googleClient.ts`; `docs/catalogs.md`, "Warehouse"; the APIs in
 * `docs/catalog-apis.md` B1 to B4.
 */
import { CatalogApiError } from '../provider.js';
import type { RunEvent } from '../../openlineage/model.js';

/** A BigQuery `TableFieldSchema` (the fields read). */
export interface BigQueryField {
  name?: string | undefined;
  type?: string | undefined;
  mode?: string | undefined;
  description?: string | undefined;
  fields?: BigQueryField[] | undefined;
}

/** A BigQuery `Table` of `tables.get` (the fields read; int64 and times are JSON strings on the wire). */
export interface BigQueryTable {
  kind?: string | undefined;
  id?: string | undefined;
  tableReference?: { projectId?: string; datasetId?: string; tableId?: string } | undefined;
  type?: string | undefined;
  schema?: { fields?: BigQueryField[] | undefined } | undefined;
  description?: string | undefined;
  friendlyName?: string | undefined;
  labels?: Record<string, string> | undefined;
  location?: string | undefined;
  numRows?: string | number | undefined;
  numBytes?: string | number | undefined;
  creationTime?: string | number | undefined;
  lastModifiedTime?: string | number | undefined;
}

/** Where a table is in BigQuery. */
export interface BigQueryTableRef {
  project: string;
  dataset: string;
  table: string;
}

/** The answer of `processOpenLineageRunEvent`: resource names of the process, run and lineage events. */
export interface ProcessOpenLineageResponse {
  process?: string | undefined;
  run?: string | undefined;
  lineageEvents?: string[] | undefined;
}

/** A Data Lineage `EntityReference`: the fully qualified name of an asset (`bigquery:{project}.{dataset}.{table}`). */
export interface LineageEntityReference {
  fullyQualifiedName?: string | undefined;
  field?: string[] | undefined;
}

/** A Data Lineage `Link` of `searchLinks`: data flowed from `source` to `target` (times RFC 3339). */
export interface LineageLink {
  /** `projects/{project}/locations/{location}/links/{link}`. */
  name?: string | undefined;
  source?: LineageEntityReference | undefined;
  target?: LineageEntityReference | undefined;
  startTime?: string | undefined;
  endTime?: string | undefined;
}

/** One page of `searchLinks`; `nextPageToken` is absent on the last. */
export interface SearchLinksPage {
  links?: LineageLink[] | undefined;
  nextPageToken?: string | undefined;
}

/** One process of `batchSearchLinkProcesses` with the links (of those asked) it created. */
export interface LineageProcessLinks {
  /** `projects/{project}/locations/{location}/processes/{process}`. */
  process?: string | undefined;
  links?:
    Array<{ link?: string | undefined; startTime?: string | undefined; endTime?: string | undefined }> | undefined;
}

/** One page of `batchSearchLinkProcesses`; `nextPageToken` is absent on the last. */
export interface BatchSearchLinkProcessesPage {
  processLinks?: LineageProcessLinks[] | undefined;
  nextPageToken?: string | undefined;
}

/** A Data Lineage `Process` (`processes.get`): a scheduled query, a Dataflow job, a Composer task, ... */
export interface LineageProcess {
  name?: string | undefined;
  displayName?: string | undefined;
  /** Non-semantic attributes (Google's own processes name e.g. the BigQuery job or transfer config). */
  attributes?: Record<string, unknown> | undefined;
  /** `sourceType` (`BIGQUERY`, `DATAFLOW`, `COMPOSER`, `CUSTOM`, ...) and `name` (the reporting system's resource). */
  origin?: { sourceType?: string | undefined; name?: string | undefined } | undefined;
}

/** Credentials could not be obtained: neither an access token nor application-default credentials. */
export class WarehouseCredentialsError extends Error {
  override readonly name = 'WarehouseCredentialsError';
}

/**
 * The Google APIs as the provider uses them. Calls throw `CatalogApiError` on failure (`status` =
 * the HTTP status, `errorCode` = Google's `status` or BigQuery's `reason`, e.g. `notFound`).
 */
export interface WarehouseCatalogPort {
  /** The configured project (`LINEAGE_SVC_WAREHOUSE_PROJECT_ID`): lineage events go there; tables without a project use it. */
  readonly projectId: string;
  /** The Data Lineage location (`LINEAGE_SVC_WAREHOUSE_LOCATION`), e.g. `us`, `eu`, `europe-west1`. */
  readonly location: string;
  /** Obtains (and caches) an access token. @throws WarehouseCredentialsError with a one-line message */
  authenticate(): Promise<void>;
  getTable(ref: BigQueryTableRef): Promise<BigQueryTable>;
  /**
   * Data Lineage `searchLinks` (`docs/catalog-apis.md` B3) under the configured project and location:
   * one page (at most 100 links) of the links whose source is `sourceFqn`.
   */
  searchLinks(sourceFqn: string, pageToken?: string): Promise<SearchLinksPage>;
  /** Data Lineage `batchSearchLinkProcesses`: one page of the processes that created `links` (at most 100 link names). */
  batchSearchLinkProcesses(links: readonly string[], pageToken?: string): Promise<BatchSearchLinkProcessesPage>;
  /** Data Lineage `processes.get` of a process resource name (`projects/{p}/locations/{l}/processes/{id}`). */
  getProcess(name: string): Promise<LineageProcess>;
  /** Sends one RunEvent under the configured project and location. */
  processOpenLineageRunEvent(event: RunEvent, requestId: string): Promise<ProcessOpenLineageResponse>;
  /**
   * Dataplex: makes sure `projects/{p}/locations/{l}/{collection}/{id}` exists: `GET`, and when it
   * answers 404, `POST ...?{entryGroupId|entryTypeId|aspectTypeId}=` then the long-running
   * operation is awaited (a 409 counts as existing).
   */
  ensureDataplexResource(
    collection: DataplexCollection,
    id: string,
    body: Record<string, unknown>,
  ): Promise<'exists' | 'created'>;
  /** Dataplex: `POST .../entryGroups/{group}/entries?entryId=`; `exists` when it answers 409. */
  createDataplexEntry(entryGroup: string, entryId: string, entry: DataplexEntry): Promise<'created' | 'exists'>;
  /** Dataplex: `PATCH .../entryGroups/{group}/entries/{id}?updateMask=aspects&aspectKeys=...` (the given aspects replace theirs). */
  updateDataplexEntryAspects(entryGroup: string, entryId: string, aspects: DataplexEntry['aspects']): Promise<void>;
}

/** Dataplex Catalog collections the provider creates resources in. */
export type DataplexCollection = 'entryGroups' | 'entryTypes' | 'aspectTypes';

/** A Dataplex `Entry` as created by the provider. */
export interface DataplexEntry {
  entryType: string;
  fullyQualifiedName: string;
  entrySource: { system: string; platform: string; displayName: string; description?: string };
  aspects: Record<string, { data: Record<string, unknown> }>;
}

/** Calls in flight during enrichment, push and Dataplex registration. */
export const ENRICH_CONCURRENCY = 4;

/** True when a failure means the table is missing or forbidden (404, 401, 403). */
export function isSkippableWarehouseError(error: unknown): boolean {
  return error instanceof CatalogApiError && error.skippable;
}

/** The one-line message of a failure (its `message` when it is an Error). */
export function describeFailure(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** True for a string with at least one character (a field of Google's answers or a node attribute). */
export const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value !== '';
