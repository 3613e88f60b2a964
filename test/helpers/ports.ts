/** Ports for tests that need an address before a server takes it, or one nothing listens on. */
import { createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that nothing listens on now (bound and released at once): for a server
 * started next, or as an address that refuses connections.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
