/**
 * `make serve` (`commands/serve.ts`) finds a busy UI or API port before it starts anything (issue 28):
 * one line naming the address and the variable to change, exit 1, and no extraction run, no store
 * written. Real processes: the command from source, a server holding the port on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { freePort } from '../helpers/ports.js';

const ROOT = join(import.meta.dirname, '..', '..');
const COMMAND = ['--import', import.meta.resolve('tsx'), join(ROOT, 'commands', 'serve.ts')];

/** A server holding a free port of 127.0.0.1, and that port. */
async function holdPort(): Promise<{ server: Server; port: number }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, () => resolve()));
  return { server, port: (server.address() as { port: number }).port };
}

/** Runs `commands/serve.ts` in `folder` with `env`; resolves with its exit code and output. */
function serve(
  folder: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, COMMAND, {
      cwd: folder,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('make serve on a busy port', () => {
  for (const which of ['UI', 'API'] as const) {
    it(`stops before the extraction when the ${which} port is taken, naming its variable`, async () => {
      const busy = await holdPort();
      const other = await freePort();
      const folder = mkdtempSync(join(tmpdir(), 'lineage-serve-busy-'));
      try {
        const ports =
          which === 'UI'
            ? { LINEAGE_SVC_UI_PORT: String(busy.port), LINEAGE_SVC_API_PORT: String(other) }
            : { LINEAGE_SVC_UI_PORT: String(other), LINEAGE_SVC_API_PORT: String(busy.port) };
        const run = await serve(folder, ports);
        assert.equal(run.code, 1, run.stdout + run.stderr);
        const variable = which === 'UI' ? 'LINEAGE_SVC_UI_PORT' : 'LINEAGE_SVC_API_PORT';
        assert.equal(
          run.stderr,
          `lineage-svc serve: cannot listen on 127.0.0.1:${busy.port} (${which === 'UI' ? 'LINEAGE_SVC_UI_HOST, ' : ''}` +
            `${variable}): the port is already in use; set ${variable} to a free port\n`,
        );
        assert.equal(run.stdout, '', 'nothing started: no simulator, no extraction');
        assert.ok(!existsSync(join(folder, '.lineage-svc')), 'no store written');
      } finally {
        busy.server.close();
        rmSync(folder, { recursive: true, force: true });
      }
    });
  }
});
