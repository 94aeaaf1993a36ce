// `npm run screenshots [story-id ...]`: builds Storybook, then photographs stories in Chromium
// at 320, 640 and 1024 px, light and dark, into screenshots/ (git-ignored), to judge the kit's
// look. Without ids it takes the stories below.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { launchChromium } from '../test/e2e/support/browser';
import { send, startHttpServer } from '../test/e2e/support/http-server';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BUILD = path.join(ROOT, 'storybook-static');
const OUT = path.join(ROOT, 'screenshots');
const WIDTHS = [320, 640, 1024];
const SCHEMES = ['light', 'dark'];
const STORIES = [
  'components-datasourceform--create',
  'components-datasourceform--field-errors',
  'components-datasourceform--timeout',
  'components-datasourceform--verified',
  'components-datasourceform--with-ssh-tunnel',
  'components-datasourceform--edit-with-stored-secrets',
  'components-datasourceform--delete-dialog-open',
  'components-datasourceform--member-read-only',
  'components-datasourceform--plain-in-a-panel',
  'components-membercard--loaded',
  'components-membercard--given-member',
  'components-orgpicker--with-value',
  'components-orgpicker--open',
  'components-orgpicker--no-search-match',
  'theming--hostile-host-css',
];
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
};

/** Until the story rendered and its play function ran; a story that failed stops the run. */
async function played(page: Page, id: string) {
  const handle = await page.waitForFunction((storyId) => {
    // biome-ignore lint/suspicious/noExplicitAny: Storybook's preview global is untyped.
    const render = (window as any).__STORYBOOK_PREVIEW__?.currentRender;
    const phase = render?.id === storyId ? (render.phase as string) : '';
    return ['finished', 'errored', 'aborted'].includes(phase) ? phase : false;
  }, id);
  const phase = await handle.jsonValue();
  if (phase !== 'finished') throw new Error(`story ${id} ${phase}`);
}

async function shoot(page: Page, origin: string, id: string, width: number, scheme: string) {
  await page.setViewportSize({ width, height: 720 });
  await page.goto(`${origin}/iframe.html?id=${id}&viewMode=story&globals=scheme:${scheme}`);
  await played(page, id);
  // Let the last fetches land and finite transitions end; skeletons pulse forever.
  await page.waitForTimeout(300);
  const file = path.join(OUT, `${id}--${width}-${scheme}.png`);
  await page.screenshot({ path: file, fullPage: true, animations: 'disabled' });
  return file;
}

const wanted = process.argv.slice(2);
execFileSync('npx', ['storybook', 'build', '--quiet', '-o', BUILD], {
  cwd: ROOT,
  stdio: 'inherit',
});
const index = JSON.parse(readFileSync(path.join(BUILD, 'index.json'), 'utf8')) as {
  entries: Record<string, unknown>;
};
const ids = wanted.length > 0 ? wanted : STORIES.filter((id) => id in index.entries);
mkdirSync(OUT, { recursive: true });

const server = await startHttpServer(async (_req, res, url) => {
  const file = path.join(BUILD, path.normalize(decodeURIComponent(url.pathname)));
  const body = file.startsWith(BUILD) ? await readFile(file).catch(() => null) : null;
  if (!body) return send(res, 404, 'text/plain', 'not found');
  send(res, 200, TYPES[path.extname(file)] ?? 'application/octet-stream', body);
});
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  for (const id of ids) {
    for (const width of WIDTHS) {
      for (const scheme of SCHEMES)
        console.log(await shoot(page, server.origin, id, width, scheme));
    }
  }
} finally {
  await browser.close();
  await server.close();
}
