#!/usr/bin/env node
/**
 * `lineage-svc-ui`: serves the web UI (`docs/ui.md`). No arguments; settings from the environment:
 * `LINEAGE_SVC_UI_HOST` (default 127.0.0.1), `LINEAGE_SVC_UI_PORT` (default 8501),
 * `LINEAGE_SVC_API_URL` (default http://127.0.0.1:8000), `LINEAGE_SVC_API_KEY` (a read key, added to
 * proxied GET and HEAD requests only; never sent to the browser; writes carry the user's own key)
 * and `LINEAGE_SVC_UI_ALLOWED_HOSTS` (the names the `Host` header may give; `infra/ui/server.ts`).
 *
 * Prints `lineage-svc-ui: open http://HOST:PORT/` once listening. SIGINT/SIGTERM close the server;
 * exit code 0. Bad settings, an unbuilt UI or a port in use: one line on stderr, exit code 2.
 */
import './environment.js'; // first: .env settings before anything reads the environment
import { command } from 'cmd-ts';
import closeWithGrace from 'close-with-grace';
import { buildUiServer, loadUiSettings } from '../infra/ui/server.js';
import { buildMarquezWebServer, loadMarquezWebSettings } from '../infra/ui/marquezWeb.js';
import { parseArguments, reportError } from './arguments.js';

const NAME = 'lineage-svc-ui';

/** The command-line interface (cmd-ts): no arguments, `--help` describes the settings. */
export const uiCli = command({
  name: NAME,
  description:
    'Serve the lineage-svc web UI. Settings from the environment: LINEAGE_SVC_UI_HOST (default 127.0.0.1), ' +
    'LINEAGE_SVC_UI_PORT (default 8501), LINEAGE_SVC_API_URL (default http://127.0.0.1:8000), ' +
    'LINEAGE_SVC_API_KEY (a read key: the server adds it to GET and HEAD requests only and never sends it to the browser; ' +
    "an action that changes something carries the user's own key, asked for by the page), " +
    'LINEAGE_SVC_UI_ALLOWED_HOSTS (comma-separated host or host:port names the Host header may give; ' +
    'default localhost, 127.0.0.1, [::1] and the bind address, or every address of this machine when bound to 0.0.0.0), ' +
    'LINEAGE_SVC_MARQUEZ_WEB_DIR (the folder of a Marquez Web build, web/dist: served unchanged, with the same guards, ' +
    'on LINEAGE_SVC_MARQUEZ_WEB_PORT, default 3000, against the API; docs/marquez.md).',
  args: {},
  handler: (args) => args,
});

async function main(argv: string[]): Promise<number> {
  const parsed = await parseArguments(uiCli, NAME, argv);
  if ('exitCode' in parsed) return parsed.exitCode;
  const settings = loadUiSettings(process.env);
  const marquezWeb = loadMarquezWebSettings(process.env);
  const app = await buildUiServer({ settings, logger: { level: 'warn' } });
  const marquez =
    marquezWeb.folder === undefined
      ? undefined
      : await buildMarquezWebServer(marquezWeb.folder, { settings, logger: { level: 'warn' } });
  closeWithGrace({ delay: 5_000 }, async () => {
    await app.close();
    await marquez?.close();
  });
  await app.listen({ host: settings.host, port: settings.port });
  const address = app.server.address();
  const port = address && typeof address === 'object' ? address.port : settings.port;
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  process.stdout.write(`${NAME}: open http://${host}:${port}/ (API at ${settings.apiUrl})\n`);
  if (marquez) {
    await marquez.listen({ host: settings.host, port: marquezWeb.port });
    const marquezAddress = marquez.server.address();
    const marquezPort = marquezAddress && typeof marquezAddress === 'object' ? marquezAddress.port : marquezWeb.port;
    process.stdout.write(`${NAME}: Marquez Web at http://${host}:${marquezPort}/ (from ${marquezWeb.folder})\n`);
  }
  return 0;
}

try {
  const code = await main(process.argv.slice(2));
  if (code !== 0) process.exit(code);
} catch (error) {
  process.exit(reportError(process, NAME, error));
}
