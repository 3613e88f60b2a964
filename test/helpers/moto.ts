/**
 * moto (`python3 -m moto.server`), the AWS emulator the AWS Glue tests run against: whether it is
 * installed, and a server on a free loopback port.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { freePort } from './ports.js';

/** True when `python3 -c 'import moto'` succeeds; the Glue tests skip with a notice otherwise. */
export const motoInstalled = spawnSync('python3', ['-c', 'import moto'], { stdio: 'ignore' }).status === 0;

/**
 * Starts moto on a free port and waits (at most 60 s) until it answers; kill `child` when done.
 * @throws when moto exits or does not answer in time.
 */
export async function startMoto(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn('python3', ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  for (let waited = 0; ; waited += 100) {
    if (child.exitCode !== null) throw new Error(`moto exited with ${child.exitCode}`);
    try {
      await fetch(`${url}/moto-api/`);
      return { url, child };
    } catch {
      if (waited > 60_000) throw new Error('moto did not answer within 60 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
