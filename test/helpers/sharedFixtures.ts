/**
 * Reading `../shared/fixtures` (beside the checkout) from tests. The folder is not part of the
 * project: when it is absent, a test that needs a fixture skips and says which file was missing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { TestContext } from 'node:test';

/** `../shared/fixtures` of this checkout. */
export const SHARED_FIXTURES = resolve(import.meta.dirname, '..', '..', '..', 'shared', 'fixtures');

/**
 * The parsed JSON of `../shared/fixtures/{relativePath}`, or undefined after `t.skip(...)` when the
 * file is absent.
 */
export function sharedFixture<T = unknown>(t: TestContext, relativePath: string): T | undefined {
  const path = join(SHARED_FIXTURES, relativePath);
  if (!existsSync(path)) {
    t.skip(`../shared/fixtures/${relativePath} not found: fixture not checked`);
    return undefined;
  }
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}
