/**
 * Scenarios of the lakehouse (Databricks) simulator: the workspace's tables, table lineage, SQL
 * warehouses, the principal's permissions, and faults. YAML or an object, validated by
 * `lakehouseScenarioSchema` (zod); built-in scenarios live in `./scenarios/{name}.yaml`.
 *
 * ```yaml
 * name: demo
 * token: dapi-demo-token            # the bearer token accepted
 * workspace_id: 6051921418418893
 * lineage_tracking: true            # false: table-lineage answers 404 ENDPOINT_NOT_FOUND
 * statement_pending_polls: 0        # polls a statement stays RUNNING before it ends
 * warehouses: [{ id, name, state, enable_serverless_compute, cluster_size }]
 * principal:
 *   name: lineage-svc@acme.com
 *   create_table_denied: [retail_prod.default]   # schemas where CREATE TABLE is refused
 * tables:
 *   - full_name: retail_prod.lkc-7x9m2p.orders_enriched
 *     table_type: MANAGED
 *     data_source_format: DELTA
 *     owner: data-platform@acme.com
 *     storage_location: s3://...
 *     created_at: 1725266400000     # epoch ms
 *     updated_at: 1733043100000
 *     columns: [{ name, type_text, type_name, comment, nullable }]
 *     access: ok | forbidden | unauthorized    # forbidden: GET 403 and PERMISSION_DENIED on statements
 *     modify_denied: false          # true: ALTER / COMMENT fail with PERMISSION_DENIED
 * lineage: [{ upstream: a.b.c, downstream: d.e.f, notebook_id: 123, job_id: 45, pipeline_id: p-1, query_id: q-1 }]   # ids optional
 * faults: [{ api: lakehouse.tables.get, status: 503, times: 2, retry_after: 0 }]
 * ```
 */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ValidationError } from '../../src/errors.js';

const column = z.object({
  name: z.string().min(1),
  type_text: z.string().min(1),
  type_name: z.string().min(1).optional(),
  comment: z.string().nullable().optional(),
  nullable: z.boolean().default(true),
});

const table = z.object({
  full_name: z.string().regex(/^[^.]+\.[^.]+\.[^.]+$/, 'must be catalog.schema.table'),
  table_type: z.string().default('MANAGED'),
  data_source_format: z.string().default('DELTA'),
  owner: z.string().nullable().default(null),
  storage_location: z.string().nullable().default(null),
  comment: z.string().nullable().default(null),
  created_at: z.number().int().default(1_725_266_400_000),
  updated_at: z.number().int().default(1_725_266_400_000),
  columns: z.array(column).default([]),
  properties: z.record(z.string(), z.string()).default({}),
  access: z.enum(['ok', 'forbidden', 'unauthorized']).default('ok'),
  modify_denied: z.boolean().default(false),
});

const fault = z.object({
  /** API name (`lakehouse.tables.get`, `lakehouse.lineage.table`, `lakehouse.sql.statements`, `lakehouse.sql.statements.get`, `lakehouse.warehouses.list`). */
  api: z.string().min(1),
  status: z.number().int().min(400).max(599),
  /** How many requests it answers; default 1. */
  times: z.number().int().positive().default(1),
  /** `Retry-After` seconds sent with it. */
  retry_after: z.number().nonnegative().optional(),
});

/** The scenario schema. */
export const lakehouseScenarioSchema = z.object({
  name: z.string().default('custom'),
  token: z.string().min(1),
  workspace_id: z.number().int().default(6_051_921_418_418_893),
  lineage_tracking: z.boolean().default(true),
  statement_pending_polls: z.number().int().min(0).max(100).default(0),
  warehouses: z
    .array(
      z.object({
        id: z.string().min(1),
        name: z.string(),
        state: z.enum(['RUNNING', 'STARTING', 'STOPPED', 'STOPPING', 'DELETING', 'DELETED']).default('RUNNING'),
        enable_serverless_compute: z.boolean().default(false),
        cluster_size: z.string().default('2X-Small'),
        warehouse_type: z.enum(['PRO', 'CLASSIC']).default('PRO'),
      }),
    )
    .default([]),
  principal: z
    .object({ name: z.string().default('lineage-svc'), create_table_denied: z.array(z.string()).default([]) })
    .default({ name: 'lineage-svc', create_table_denied: [] }),
  tables: z.array(table).default([]),
  lineage: z
    .array(
      z.object({
        upstream: z.string(),
        downstream: z.string(),
        /** The notebook, job, pipeline or query that wrote `downstream` from `upstream` (entity infos of A4). */
        notebook_id: z.union([z.number().int(), z.string()]).optional(),
        job_id: z.union([z.number().int(), z.string()]).optional(),
        pipeline_id: z.string().optional(),
        query_id: z.string().optional(),
      }),
    )
    .default([]),
  faults: z.array(fault).default([]),
});

export type LakehouseScenario = z.infer<typeof lakehouseScenarioSchema>;
export type LakehouseScenarioInput = z.input<typeof lakehouseScenarioSchema>;
export type LakehouseFault = z.input<typeof fault>;

/** Validates a scenario object. @throws ValidationError listing the problems. */
export function parseLakehouseScenario(input: unknown): LakehouseScenario {
  const parsed = lakehouseScenarioSchema.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({
      path: issue.path.join('.') || '(root)',
      message: issue.message,
    }));
    throw new ValidationError(
      `invalid lakehouse scenario: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
      issues,
    );
  }
  return parsed.data;
}

/** Folder of the built-in scenarios (sources or `dist/`). */
export const builtInLakehouseScenarioDir = ((): string => {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.join(here, 'scenarios'), path.resolve(here, '../../../simulators/databricks/scenarios')];
  return candidates.find((dir) => existsSync(path.join(dir, 'demo.yaml'))) ?? (candidates[0] as string);
})();

/** Loads a built-in scenario by name (`demo`) or a YAML file by path. @throws ValidationError */
export async function loadLakehouseScenario(nameOrPath: string): Promise<LakehouseScenario> {
  const isName = /^[A-Za-z0-9_-]+$/.test(nameOrPath);
  const file = isName ? path.join(builtInLakehouseScenarioDir, `${nameOrPath}.yaml`) : path.resolve(nameOrPath);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new ValidationError(`invalid lakehouse scenario (${nameOrPath}): cannot read ${file}`);
  }
  return parseLakehouseScenario(parseYaml(text));
}
