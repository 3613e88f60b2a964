/**
 * Headless Chromium for the web UI's end-to-end tests and bench: Debian's `chromium` (installed by
 * `infra/ui/ensureBrowser.sh` when missing) driven by `playwright-core` over its DevTools protocol.
 * WebGL runs in software (SwiftShader), as on a machine without a GPU.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Where Chromium may be: `LINEAGE_SVC_CHROMIUM`, then Debian's paths (the binary before its wrapper script). */
export const CHROMIUM_CANDIDATES = ['/usr/lib/chromium/chromium', '/usr/bin/chromium', '/usr/bin/chromium-browser'];

/** The path of a Chromium executable, or undefined when none is installed. */
export function findChromium(env: Record<string, string | undefined> = process.env): string | undefined {
  const candidates = [env.LINEAGE_SVC_CHROMIUM, ...CHROMIUM_CANDIDATES].filter((path): path is string => !!path);
  return candidates.find((path) => existsSync(path));
}

/**
 * Launches headless Chromium with software WebGL. Throws when no Chromium is installed (the message
 * says how to install it).
 */
export async function launchChromium(): Promise<Browser> {
  const executablePath = findChromium();
  if (!executablePath) {
    throw new Error('no Chromium found: run `make browser` (apt-get install chromium) or set LINEAGE_SVC_CHROMIUM');
  }
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      '--use-gl=angle',
      '--use-angle=swiftshader',
      '--enable-unsafe-swiftshader',
      '--ignore-gpu-blocklist',
      // Composite on the CPU: compositing through SwiftShader costs more than drawing the graph
      // (measured: panning the demo graph at 5 fps with it, 27 fps without, on a loaded 2-core machine).
      '--disable-gpu-compositing',
      '--no-sandbox',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-default-apps',
      '--disable-sync',
      '--metrics-recording-only',
    ],
  });
}
