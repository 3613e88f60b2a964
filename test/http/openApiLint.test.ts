/**
 * The OpenAPI linter passes with no warning we have not explained (issue 17, item 2): the document
 * the API serves, built as `make lint` builds it (`infra/http/writeOpenApiDocument.ts`), linted by
 * Redocly's CLI with `redocly.yaml` (recommended-strict: every warning is an error), answers no
 * error, no warning and nothing ignored; every rule `redocly.yaml` turns off has a comment saying
 * why; there is no lint-ignore file; and a document with a fault the rules cover fails the same
 * lint (so the check can fail).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import type { JsonObject } from '../../infra/http/openApi.js';
import { buildOpenApiDocument } from '../../infra/http/writeOpenApiDocument.js';

const root = join(import.meta.dirname, '..', '..');
const CONFIG = join(root, 'redocly.yaml');

/** What `redocly lint --format json` prints on stdout. */
interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: Array<{ ruleId: string; severity: string; message: string }>;
}

/** Lints `document` with Redocly's CLI and `redocly.yaml`, as `make lint` does; no usage data sent. */
function lint(folder: string, name: string, document: JsonObject): LintReport {
  const file = join(folder, `${name}.json`);
  writeFileSync(file, JSON.stringify(document, null, 2));
  const result = spawnSync(
    join(root, 'node_modules', '.bin', 'redocly'),
    ['lint', '--config', CONFIG, '--format', 'json', file],
    {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      timeout: 120_000,
    },
  );
  assert.ok(
    result.stdout.trim().startsWith('{'),
    `redocly printed no report (exit ${result.status}): ${result.stderr}`,
  );
  return JSON.parse(result.stdout) as LintReport;
}

describe("Redocly's lint of the OpenAPI document", () => {
  let folder: string;
  let document: JsonObject;
  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'lineage-svc-openapi-lint-'));
    document = await buildOpenApiDocument({ PATH: process.env.PATH });
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  it('passes with no error, no warning and nothing ignored', () => {
    const report = lint(folder, 'served', document);
    assert.deepEqual(
      report.problems.map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message}`),
      [],
    );
    assert.deepEqual(report.totals, { errors: 0, warnings: 0, ignored: 0 });
  });

  it('fails a document whose operations lose their operationId and summary (the lint can fail)', () => {
    const broken = structuredClone(document) as { paths: Record<string, Record<string, JsonObject>> };
    const graph = broken.paths['/api/v1/graphs/{graph_id}']!.get!;
    delete graph.operationId;
    delete graph.summary;
    const report = lint(folder, 'broken', broken as unknown as JsonObject);
    assert.ok(report.totals.errors > 0, JSON.stringify(report.totals));
    assert.ok(
      report.problems.some((problem) => problem.ruleId === 'operation-operationId'),
      report.problems.map((problem) => problem.ruleId).join(', '),
    );
  });

  it('explains every rule redocly.yaml turns off, and keeps no lint-ignore file', () => {
    const text = readFileSync(CONFIG, 'utf8');
    const config = parse(text) as { extends?: string[]; telemetry?: string; rules?: Record<string, unknown> };
    assert.deepEqual(config.extends, ['recommended-strict'], 'every warning of the recommended rules is an error');
    assert.equal(config.telemetry, 'off');
    const lines = text.split('\n');
    const off = Object.entries(config.rules ?? {}).filter(([, setting]) => setting === 'off');
    for (const [rule] of off) {
      const at = lines.findIndex((line) => line.trim() === `${rule}: off`);
      assert.ok(at > 0, `${rule}: off is on a line of its own`);
      assert.match(lines[at - 1]!, /^\s*#\s*\S/, `${rule} is turned off without a comment above it`);
    }
    for (const name of ['.redocly.lint-ignore.yaml', 'redocly.lint-ignore.yaml'])
      assert.equal(existsSync(join(root, name)), false, `${name} hides problems`);
  });
});
