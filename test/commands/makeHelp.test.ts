/**
 * `make help`, which `make` alone prints (issue 17, item 1): one line per target of the Makefile,
 * every target there, and no line for a target that does not exist. The targets are read from the
 * Makefile itself (its rules and `.PHONY`), so a new target without a help line fails this test.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const root = join(import.meta.dirname, '..', '..');

/** The targets a user can name: rules whose name is a word (not a file such as `dist/ui/index.html`), and `.PHONY`. */
function makefileTargets(makefile: string): Set<string> {
  const targets = new Set<string>();
  const text = makefile.replace(/\\\n/g, ' ');
  for (const match of text.matchAll(/^([A-Za-z][A-Za-z0-9_-]*)\s*:(?!=)/gm)) targets.add(match[1]!);
  const phony = /^\.PHONY\s*:(.*)$/m.exec(text);
  for (const name of phony?.[1]?.trim().split(/\s+/) ?? []) targets.add(name);
  return targets;
}

/** `make` run quietly in the repository with `args`: its stdout, after checking it exited 0. */
function make(args: string[]): string {
  const result = spawnSync('make', ['--no-print-directory', '-s', ...args], { cwd: root, encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout;
}

describe('make help', () => {
  const targets = makefileTargets(readFileSync(join(root, 'Makefile'), 'utf8'));

  it('finds the Makefile targets it checks (the parse can fail)', () => {
    for (const target of ['help', 'build', 'test', 'test-file', 'lint', 'package-check', 'clean'])
      assert.ok(targets.has(target), target);
    assert.ok(!targets.has('SHELL') && !targets.has('NODE_TEST') && !targets.has('PRODUCT_DIST'), 'no variable');
    assert.ok(targets.size >= 15, [...targets].join(' '));
  });

  it('is what make alone prints, and lists every target once, one line each, with what it does', () => {
    const help = make(['help']);
    assert.equal(make([]), help, 'make alone prints the help');
    const listed = help
      .trim()
      .split('\n')
      .map((line) => {
        const match = /^make ([a-z][a-z-]*)(?: [A-Z]+=\S+)?\s{2,}(\S.*)$/.exec(line);
        assert.ok(match, `not "make TARGET  what it does": ${JSON.stringify(line)}`);
        return match[1]!;
      });
    assert.equal(new Set(listed).size, listed.length, `listed twice: ${listed.join(' ')}`);
    const missing = [...targets].filter((target) => target !== 'help' && !listed.includes(target));
    assert.deepEqual(missing, [], 'targets without a help line');
    const unknown = listed.filter((target) => !targets.has(target));
    assert.deepEqual(unknown, [], 'help lines for targets that do not exist');
  });
});

describe('make install', () => {
  it('says what a first install does, then shows the install scripts as they run (issue 28)', () => {
    // -n: print the commands; -W package.json: as if package.json had changed.
    const result = spawnSync(
      'make',
      ['--no-print-directory', '-n', '-W', 'package.json', 'node_modules/.install-stamp'],
      {
        cwd: root,
        encoding: 'utf8',
      },
    );
    assert.equal(result.status, 0, result.stderr);
    const lines = result.stdout.trim().split('\n');
    const install = lines.findIndex((line) => /^npm install\b/.test(line));
    assert.ok(install > 0, result.stdout);
    assert.match(lines.slice(0, install).join('\n'), /echo "make: npm install \(a first install takes a few minutes/);
    assert.match(lines[install]!, /--foreground-scripts/);
  });
});
