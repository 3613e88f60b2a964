/**
 * The dependency rule, checked (docs/architecture.md, "Layers"):
 * - the core (`src/`) imports no I/O driver and nothing from the outer folders;
 * - `projections/` imports only the core and graphology;
 * - `services/` (the use cases) imports the core, the projections and each other, never a driver,
 *   `infra/` (not even a type: its runtime is a port, `services/runtime.ts`), `commands/` or `simulators/`;
 * - `infra/` never imports `commands/`;
 * - nothing in `src/`, `projections/`, `services/` or `infra/` imports `simulators/`, not even a type:
 *   simulators stand in for other companies' systems and ship only for tests, the demo and the bench.
 * Type-only imports are allowed elsewhere (they vanish at build).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';

const root = join(import.meta.dirname, '..');

function sourceFiles(folder: string): string[] {
  return readdirSync(join(root, folder)).flatMap((entry) => {
    const path = join(folder, entry);
    return statSync(join(root, path)).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Value imports of a file (not `import type`), as written; with `withTypes`, type-only imports too. */
function valueImports(file: string, withTypes = false): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const specifiers: string[] = [];
  for (const match of text.matchAll(/^\s*(import|export)\s+(type\s+)?[^'"]*?from\s+['"]([^'"]+)['"]/gm)) {
    if (withTypes || !match[2]) specifiers.push(match[3]!);
  }
  for (const match of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    // `import('...')` inside a type position is type-only; only count it when used as a call.
    if (!/:\s*import\(/.test(text.slice(Math.max(0, match.index! - 3), match.index! + 7))) specifiers.push(match[1]!);
  }
  return specifiers;
}

function layerOf(file: string, specifier: string): string {
  if (!specifier.startsWith('.')) return specifier;
  return relative(root, join(root, file, '..', specifier)).split('/')[0]!;
}

const DRIVERS =
  /^(fastify|@fastify\/|kafkajs|@eventstore\/|better-sqlite3|pg$|undici|node:(fs|net|http|https|child_process|dgram|tls))/;

describe('architecture', () => {
  it('keeps I/O drivers and outer layers out of the core', () => {
    const violations = sourceFiles('src').flatMap((file) =>
      valueImports(file)
        .filter(
          (specifier) =>
            DRIVERS.test(specifier) || ['projections', 'infra', 'commands'].includes(layerOf(file, specifier)),
        )
        .map((specifier) => `${file} imports ${specifier}`),
    );
    assert.deepEqual(violations, []);
  });

  it('lets projections depend only on the core and graphology', () => {
    const violations = sourceFiles('projections').flatMap((file) =>
      valueImports(file)
        .filter((specifier) => DRIVERS.test(specifier) || ['infra', 'commands'].includes(layerOf(file, specifier)))
        .map((specifier) => `${file} imports ${specifier}`),
    );
    assert.deepEqual(violations, []);
  });

  it('gives the use cases (services/) their runtime as a port: no import from infra/, not even a type', () => {
    const violations = sourceFiles('services').flatMap((file) =>
      valueImports(file, true)
        .filter((specifier) => layerOf(file, specifier) === 'infra')
        .map((specifier) => `${file} imports ${specifier}`),
    );
    assert.deepEqual(violations, []);
  });

  it('keeps the use cases (services/) free of drivers, adapters, commands and simulators', () => {
    const violations = sourceFiles('services').flatMap((file) =>
      valueImports(file)
        .filter(
          (specifier) =>
            DRIVERS.test(specifier) || ['infra', 'commands', 'simulators'].includes(layerOf(file, specifier)),
        )
        .map((specifier) => `${file} imports ${specifier}`),
    );
    assert.deepEqual(violations, []);
  });

  it('lets only commands, tests and benchmarks use the simulators', () => {
    const violations = ['src', 'projections', 'services', 'infra'].flatMap((folder) =>
      sourceFiles(folder).flatMap((file) =>
        valueImports(file, true)
          .filter((specifier) => layerOf(file, specifier) === 'simulators')
          .map((specifier) => `${file} imports ${specifier}`),
      ),
    );
    assert.deepEqual(violations, []);
  });

  it('never lets infra reach into commands', () => {
    const violations = sourceFiles('infra').flatMap((file) =>
      valueImports(file)
        .filter((specifier) => layerOf(file, specifier) === 'commands')
        .map((specifier) => `${file} imports ${specifier}`),
    );
    assert.deepEqual(violations, []);
  });

  it('finds the files it checks', () => {
    assert.ok(sourceFiles('src').length >= 8);
    assert.ok(sourceFiles('services').length >= 5);
    assert.ok(sourceFiles('simulators').length >= 10);
    assert.ok(valueImports('src/events.ts').includes('zod'));
    // The rules would catch a breach: a command's simulator import is seen, and so is a type-only one.
    assert.equal(layerOf('commands/demo.ts', '../simulators/confluent/index.js'), 'simulators');
    assert.ok(valueImports('services/context.ts', true).some((specifier) => specifier === './runtime.js'));
    assert.ok(!valueImports('services/context.ts').some((specifier) => specifier === './runtime.js'));
  });
});
