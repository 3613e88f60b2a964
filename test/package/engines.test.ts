/**
 * No npm engine warning on the supported Node (issue 28): every package that package-lock.json
 * installs accepts the lowest Node that package.json's `engines` allows, so `npm install` on that
 * Node prints no EBADENGINE warning. Two dependencies once wanted Node 22 (cookie 2 under
 * light-my-request, content-disposition 3 under @fastify/swagger-ui's @fastify/static); the
 * `overrides` of package.json pin versions that support Node 20. Reads the lock file only.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import semver from 'semver';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (file: string) => JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as Record<string, unknown>;

describe('engines', () => {
  const floor = semver.minVersion(((read('package.json').engines ?? {}) as { node: string }).node)!;
  const packages = read('package-lock.json').packages as Record<string, { version?: string; engines?: unknown }>;

  it('every locked package accepts the lowest Node that package.json allows', () => {
    assert.ok(floor, 'package.json states engines.node');
    assert.ok(
      semver.satisfies(process.version, `>=${floor.version}`),
      `this Node ${process.version} is below the floor`,
    );
    const refusing = Object.entries(packages).flatMap(([path, entry]) => {
      const range = (entry.engines as { node?: unknown } | undefined)?.node;
      if (path === '' || typeof range !== 'string') return [];
      return semver.satisfies(floor, range) ? [] : [`${path}@${entry.version}: node ${range}`];
    });
    assert.ok(Object.keys(packages).length > 100, 'the lock file lists the installed packages');
    assert.deepEqual(refusing, [], `packages that npm would warn about on Node ${floor.version}`);
  });

  it('the README names the same floor and every tool a first `make demo` runs', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    assert.match(readme, new RegExp(`Node\\.js ${floor.major}\\.${floor.minor} or newer`));
    const prerequisites = /^Prerequisites: [\s\S]*?\n\n/m.exec(readme)?.[0] ?? '';
    // The Makefile's shell, make itself, npm and node, and node-gyp's toolchain for better-sqlite3.
    const makefile = readFileSync(join(ROOT, 'Makefile'), 'utf8');
    assert.match(makefile, /^SHELL := \/bin\/bash$/m);
    for (const tool of ['Node.js', 'npm', 'make', 'bash', 'C++ compiler', 'g++', 'python3'])
      assert.ok(prerequisites.includes(tool), `the README's prerequisites name ${tool}: ${prerequisites}`);
  });
});
