import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import axe from 'axe-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/browser';
import { send, startHttpServer, type TestServer } from './support/http-server';

// Every story of a fresh Storybook build, in real Chromium, checked with axe-core as the a11y
// addon does (document body without Storybook's own chrome, `region` off). Real layout and
// colours, so contrast is checked too, which jsdom cannot do.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OUT = mkdtempSync(path.join(tmpdir(), 'bk-storybook-'));
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
  '.png': 'image/png',
};

interface IndexEntry {
  type: 'story' | 'docs';
  id: string;
  title: string;
  name: string;
}

// A fresh build every run, so the check never reads stale stories. Without the docs pages'
// props tables (.storybook/main.ts): they are not stories, and reading the props is most of
// the build's CPU.
await promisify(execFile)('npx', ['storybook', 'build', '--quiet', '-o', OUT], {
  cwd: ROOT,
  env: { ...process.env, BRIDGEKIT_STORYBOOK_DOCGEN: '0' },
  maxBuffer: 64 * 1024 * 1024,
});
const index = JSON.parse(readFileSync(path.join(OUT, 'index.json'), 'utf8')) as {
  entries: Record<string, IndexEntry>;
};
const stories = Object.values(index.entries)
  .filter((entry) => entry.type === 'story')
  .map((entry) => [`${entry.title} / ${entry.name}`, entry.id] as const);

let server: TestServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  [server, browser] = await Promise.all([
    startHttpServer(async (_req, res, url) => {
      const file = path.join(OUT, path.normalize(decodeURIComponent(url.pathname)));
      if (!file.startsWith(`${OUT}${path.sep}`)) return send(res, 404, 'text/plain', 'not found');
      const body = await readFile(file).catch(() => null);
      if (!body) return send(res, 404, 'text/plain', 'not found');
      // Cacheable, so the preview's bundle loads once for all stories.
      res.writeHead(200, {
        'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
        'cache-control': 'max-age=3600',
      });
      res.end(body);
    }),
    launchChromium(),
  ]);
  page = await browser.newPage({ viewport: { width: 1024, height: 768 } });
  page.setDefaultTimeout(20_000);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(OUT, { recursive: true, force: true });
});

/** Waits until the story is rendered, played and past the addon's own afterEach. */
function storyPhase(page: Page, id: string): Promise<string> {
  return page
    .waitForFunction((storyId) => {
      // biome-ignore lint/suspicious/noExplicitAny: Storybook's preview global is untyped.
      const render = (window as any).__STORYBOOK_PREVIEW__?.currentRender;
      const p = render?.id === storyId ? (render.phase as string) : undefined;
      return p && ['finished', 'errored', 'aborted'].includes(p) ? p : false;
    }, id)
    .then((handle) => handle.jsonValue() as Promise<string>);
}

/** axe as the a11y addon runs it: the body minus Storybook's own elements, `region` off. */
async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source);
  return page.evaluate(async () => {
    // biome-ignore lint/suspicious/noExplicitAny: axe was injected just above.
    const run = (window as any).axe.run as (c: unknown, o: unknown) => Promise<axe.AxeResults>;
    const result = await run(
      {
        include: document.body,
        exclude: ['.sb-wrapper', '#storybook-docs', '#storybook-highlights-root'],
      },
      { rules: { region: { enabled: false } } },
    );
    return result.violations.map(
      (v) =>
        `${v.id}: ${v.nodes.map((n) => `${n.target.join(' ')} (${n.failureSummary})`).join('; ')}`,
    );
  });
}

describe('Storybook stories in Chromium', () => {
  it('has stories to check', () => {
    expect(stories.length).toBeGreaterThan(20);
  });

  it.each(stories)('%s has no axe violations', async (_name, id) => {
    // One page load; then the preview switches stories itself, as in the Storybook UI.
    if (!page.url().startsWith(server.origin)) {
      await page.goto(`${server.origin}/iframe.html?id=${encodeURIComponent(id)}&viewMode=story`);
    } else {
      await page.evaluate((storyId) => {
        // biome-ignore lint/suspicious/noExplicitAny: Storybook's channel global is untyped.
        const channel = (window as any).__STORYBOOK_ADDONS_CHANNEL__;
        channel.emit('setCurrentStory', { storyId, viewMode: 'story' });
      }, id);
    }
    expect(await storyPhase(page, id)).toBe('finished');
    // Finite animations only: loading skeletons shimmer forever.
    await page.evaluate(() =>
      Promise.all(
        document
          .getAnimations()
          .filter((a) => a.effect?.getComputedTiming().endTime !== Number.POSITIVE_INFINITY)
          .map((a) => a.finished),
      ),
    );

    expect(await axeViolations(page)).toEqual([]);
  });

  // Last, so the planted control cannot leak into a story.
  it('would notice a violation', async () => {
    const id = stories[0]![1];
    await page.goto(`${server.origin}/iframe.html?id=${id}&viewMode=story`);
    expect(await storyPhase(page, id)).toBe('finished');
    await page.evaluate(() =>
      document.getElementById('storybook-root')?.insertAdjacentHTML('beforeend', '<input>'),
    );
    expect((await axeViolations(page)).join('\n')).toMatch(/^label:/m);
  });
});
