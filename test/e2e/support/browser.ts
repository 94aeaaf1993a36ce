import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/**
 * Debian's Chromium, headless, with a fresh profile (Playwright's launch makes a temporary
 * user-data dir and removes it on close). `scripts/ensure-system-deps.sh` installs it.
 * `extraArgs`: more switches, e.g. `--test-third-party-cookie-phaseout` to block third-party
 * cookies as Chrome's phase-out does.
 */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: run scripts/ensure-system-deps.sh (apt-get install chromium)`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
      // Host pages use http://localhost; the test servers listen on 127.0.0.1 only.
      '--host-resolver-rules=MAP localhost 127.0.0.1',
      ...extraArgs,
    ],
  });
}
