/**
 * Scenarios of the warehouse (Google) simulator: the project, its BigQuery tables, its Data Lineage
 * links and processes, and faults. YAML
 * or an object, validated by `googleScenarioSchema` (zod); built-in scenarios live in
 * `./scenarios/{name}.yaml`.
 *
 * ```yaml
 * name: demo
 * token: ya29.simulated-token          # the bearer token accepted
 * project_id: acme-analytics           # the project lineage events may be sent to
 * project_number: 123456789012         # used in resource names, as Google does
 * locations: [us, eu]                  # Data Lineage locations accepted
 * tables:
 *   - project: acme-analytics
 *     dataset: retail_reporting
 *     table: order_revenue_1m
 *     type: TABLE                      # TABLE | VIEW | EXTERNAL | MATERIALIZED_VIEW | SNAPSHOT
 *     description: Revenue per minute
 *     labels: { owner: analytics }
 *     location: US
 *     num_rows: 1440
 *     num_bytes: 92160
 *     creation_time: 1725266400000     # epoch ms
 *     last_modified_time: 1733043100000
 *     view_query: null                 # the SQL of a VIEW
 *     columns: [{ name, type, mode, description, fields }]
 *     access: ok | forbidden | unauthorized
 * links:                               # Data Lineage links (searchLinks, batchSearchLinkProcesses)
 *   - source: bigquery:acme-analytics.retail_reporting.order_revenue_1m
 *     target: bigquery:acme-analytics.retail_reporting.revenue_daily_rollup
 *     process: revenue-daily-rollup    # a process id below; absent: no process known
 *     location: us                     # default the first location
 * processes:                           # processes.get
 *   - id: revenue-daily-rollup
 *     display_name: Daily revenue rollup
 *     source_type: BIGQUERY            # Origin.sourceType
 *     origin_name: projects/acme-analytics/locations/us
 *     attributes: { scheduled_query: daily-revenue-rollup }
 * faults: [{ api: warehouse.bigquery.tables.get, status: 503, times: 2, retry_after: 0 }]
 * ```
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ValidationError } from '../../src/errors.js';

/** A BigQuery column (`TableFieldSchema`). */
export interface SimulatedColumn {
  name: string;
  type: string;
  mode: 'NULLABLE' | 'REQUIRED' | 'REPEATED';
  description?: string | undefined;
  fields?: SimulatedColumn[] | undefined;
}

const column: z.ZodType<SimulatedColumn, z.input<z.ZodType<SimulatedColumn>>> = z.lazy(() =>
  z.object({
    name: z.string().min(1),
    type: z.string().min(1),
    mode: z.enum(['NULLABLE', 'REQUIRED', 'REPEATED']).default('NULLABLE'),
    description: z.string().optional(),
    fields: z.array(column).optional(),
  }),
) as never;

const table = z.object({
  project: z.string().min(1),
  dataset: z.string().regex(/^[A-Za-z0-9_]+$/, 'must be a BigQuery dataset id'),
  table: z.string().min(1),
  type: z.enum(['TABLE', 'VIEW', 'EXTERNAL', 'MATERIALIZED_VIEW', 'SNAPSHOT']).default('TABLE'),
  description: z.string().nullable().default(null),
  labels: z.record(z.string(), z.string()).default({}),
  location: z.string().default('US'),
  num_rows: z.number().int().nonnegative().default(0),
  num_bytes: z.number().int().nonnegative().default(0),
  creation_time: z.number().int().default(1_725_266_400_000),
  last_modified_time: z.number().int().default(1_725_266_400_000),
  view_query: z.string().nullable().default(null),
  columns: z.array(column).default([]),
  access: z.enum(['ok', 'forbidden', 'unauthorized']).default('ok'),
});

/** A Data Lineage FQN (`bigquery:{project}.{dataset}.{table}`, `kafka:{cluster}.{topic}`, ...). */
const fqn = z.string().regex(/^[a-z_]+:.+$/, 'must be a fully qualified name such as bigquery:project.dataset.table');

const link = z.object({
  /** The upstream asset's FQN. */
  source: fqn,
  /** The downstream asset's FQN. */
  target: fqn,
  /** The id of the process (`processes[].id`) that created the link; absent: none is known. Links with the same source, target and location are one link. */
  process: z.string().min(1).optional(),
  /** The Data Lineage location the link is recorded in; default the scenario's first location. */
  location: z.string().min(1).optional(),
  start_time: z.string().default('2024-09-02T09:00:00Z'),
  end_time: z.string().default('2024-12-01T09:00:00Z'),
});

const process = z.object({
  /** The process id, the last segment of `projects/{number}/locations/{location}/processes/{id}`. */
  id: z.string().regex(/^[a-zA-Z0-9_:.-]{1,200}$/, 'must be a process id'),
  display_name: z.string().optional(),
  /** `Origin.sourceType`: BIGQUERY, DATAFLOW, COMPOSER, CUSTOM, ... */
  source_type: z.string().default('CUSTOM'),
  /** `Origin.name`: the reporting system's resource (`projects/p/locations/us` for BigQuery). */
  origin_name: z.string().optional(),
  attributes: z.record(z.string(), z.unknown()).default({}),
});

const fault = z.object({
  /** API name (`warehouse.bigquery.tables.get`, `warehouse.lineage.processOpenLineageRunEvent`). */
  api: z.string().min(1),
  status: z.number().int().min(400).max(599),
  /** How many requests it answers; default 1. */
  times: z.number().int().positive().default(1),
  /** `Retry-After` seconds sent with it. */
  retry_after: z.number().nonnegative().optional(),
});

/** The scenario schema. */
export const googleScenarioSchema = z.object({
  name: z.string().default('custom'),
  token: z.string().min(1),
  project_id: z.string().min(1),
  project_number: z.number().int().positive().default(123_456_789_012),
  locations: z.array(z.string().min(1)).default(['us']),
  tables: z.array(table).default([]),
  /** Data Lineage links served by `searchLinks` and `batchSearchLinkProcesses`. */
  links: z.array(link).default([]),
  /** Data Lineage processes served by `processes.get`. */
  processes: z.array(process).default([]),
  faults: z.array(fault).default([]),
});

export type GoogleScenario = z.infer<typeof googleScenarioSchema>;
export type GoogleScenarioInput = z.input<typeof googleScenarioSchema>;
export type GoogleFault = z.input<typeof fault>;
export type GoogleScenarioTable = GoogleScenario['tables'][number];
export type GoogleScenarioLink = GoogleScenario['links'][number];
export type GoogleScenarioProcess = GoogleScenario['processes'][number];

/** Validates a scenario object. @throws ValidationError listing the problems. */
export function parseGoogleScenario(input: unknown): GoogleScenario {
  const parsed = googleScenarioSchema.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({
      path: issue.path.join('.') || '(root)',
      message: issue.message,
    }));
    throw new ValidationError(
      `invalid google scenario: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
      issues,
    );
  }
  return parsed.data;
}

/** Folder of the built-in scenarios (sources or `dist/`). */
export const builtInGoogleScenarioDir = ((): string => {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.join(here, 'scenarios'), path.resolve(here, '../../../simulators/google/scenarios')];
  return candidates.find((dir) => existsSync(path.join(dir, 'demo.yaml'))) ?? (candidates[0] as string);
})();

/** Loads a built-in scenario by name (`demo`) or a YAML file by path. @throws ValidationError */
export async function loadGoogleScenario(nameOrPath: string): Promise<GoogleScenario> {
  const isName = /^[A-Za-z0-9_-]+$/.test(nameOrPath);
  const file = isName ? path.join(builtInGoogleScenarioDir, `${nameOrPath}.yaml`) : path.resolve(nameOrPath);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new ValidationError(`invalid google scenario (${nameOrPath}): cannot read ${file}`);
  }
  return parseGoogleScenario(parseYaml(text));
}
