// The docs check: every relative link and #anchor in the repository's Markdown resolves (with
// GitHub's heading anchors), and every command the docs tell a reader to run exists.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../server/src/cli';
import { anchors, links, markdownFiles, ROOT, read } from './markdown';

const files = markdownFiles();

/** What is wrong with one link of `file`, or undefined when it resolves. */
function brokenLink(file: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return undefined;
  const [rawPath = '', anchor] = target.split('#', 2);
  const linked = rawPath
    ? path.join(
        rawPath.startsWith('/') ? ROOT : path.dirname(path.join(ROOT, file)),
        decodeURI(rawPath),
      )
    : path.join(ROOT, file);
  if (!linked.startsWith(ROOT)) return 'points outside the repository';
  if (!fs.existsSync(linked)) return `no such file: ${path.relative(ROOT, linked)}`;
  if (anchor === undefined || !linked.endsWith('.md')) return undefined;
  const found = anchors(fs.readFileSync(linked, 'utf8'));
  return found.has(decodeURIComponent(anchor))
    ? undefined
    : `no heading #${anchor} in ${path.relative(ROOT, linked)}`;
}

describe('links in the Markdown', () => {
  it('covers the README, the docs pages and the packages’ READMEs', () => {
    expect(files).toEqual(
      expect.arrayContaining(['README.md', 'CONTRIBUTING.md', 'SECURITY.md', 'docs/README.md']),
    );
    expect(files.filter((f) => f.startsWith('docs/')).length).toBeGreaterThanOrEqual(10);
  });

  it.each(files)('%s: every relative link and anchor resolves', (file) => {
    const broken = links(read(file))
      .map(({ target, line }) => ({ target, line, why: brokenLink(file, target) }))
      .filter((link) => link.why !== undefined)
      .map(({ target, line, why }) => `${file}:${line} ${target}: ${why}`);
    expect(broken).toEqual([]);
  });

  it('finds a broken file, a broken anchor and a good anchor as such', () => {
    expect(brokenLink('README.md', 'docs/nowhere.md')).toBe('no such file: docs/nowhere.md');
    expect(brokenLink('README.md', 'docs/cli.md#nowhere')).toBe(
      'no heading #nowhere in docs/cli.md',
    );
    expect(brokenLink('docs/README.md', '../README.md#the-packages')).toBeUndefined();
    expect(brokenLink('README.md', 'https://example.com/x.md#y')).toBeUndefined();
  });
});

type Scripts = Record<string, string>;
const scriptsOf = (dir: string): Scripts =>
  JSON.parse(fs.readFileSync(path.join(ROOT, dir, 'package.json'), 'utf8')).scripts ?? {};

interface Mention {
  command: string;
  where: string;
}

/** Every match of `pattern` in every Markdown file, with where it was written. */
function mentions(pattern: RegExp): (Mention & { match: RegExpMatchArray })[] {
  return files.flatMap((file) =>
    read(file)
      .split('\n')
      .flatMap((line, i) =>
        [...line.matchAll(pattern)].map((match) => ({
          match,
          command: match[0],
          where: `${file}:${i + 1}`,
        })),
      ),
  );
}

/** Whether the CLI knows `words` as a command: anything but "unknown command" counts as known. */
async function cliKnows(words: string[]): Promise<boolean> {
  const opened = new Error('opened the store');
  try {
    await runCli(
      words,
      () => {},
      async () => {
        throw opened;
      },
    );
    return true;
  } catch (err) {
    if (err === opened) return true;
    return !/^(unknown command|no command given)/.test((err as Error).message);
  }
}

describe('commands in the Markdown', () => {
  it('every npm run / npm start / npm test names a script of the package it runs in', () => {
    const npm = mentions(
      /\bnpm (?:run ([a-zA-Z0-9:_-]+)|(start|test)\b)(?: (?:-w|--workspace[= ])\s*([\w./-]+))?/g,
    );
    expect(npm.length).toBeGreaterThan(20);
    const missing = npm
      .filter(({ match }) => {
        const dir = match[3] ?? '.';
        if (!fs.existsSync(path.join(ROOT, dir, 'package.json'))) return true;
        return !(match[1] ?? match[2]!) || !(String(match[1] ?? match[2]) in scriptsOf(dir));
      })
      .map(({ command, where }) => `${where}: ${command}`);
    expect(missing).toEqual([]);
  });

  it('every npm run bench section is one bench/run.ts has', () => {
    const known = [
      ...fs
        .readFileSync(path.join(ROOT, 'bench/run.ts'), 'utf8')
        .matchAll(/^ {2}(\w+): \(\) => import/gm),
    ].map((m) => m[1]);
    expect(known).toContain('orgs');
    const sections = mentions(/\bnpm run bench ([a-z]+)/g);
    expect(sections.length).toBeGreaterThan(3);
    const unknown = sections
      .filter(({ match }) => !known.includes(match[1]))
      .map(({ command, where }) => `${where}: ${command}`);
    expect(unknown).toEqual([]);
  });

  it('every npx bridge command is one the CLI has', async () => {
    const bridge = mentions(/\bnpx bridge ([a-z][\w-]*)(?: ([a-z][\w-]*))?/g);
    expect(bridge.length).toBeGreaterThan(10);
    const unknown: string[] = [];
    for (const { match, command, where } of bridge) {
      const words = [match[1]!, ...(match[2] ? [match[2]] : [])];
      if (!(await cliKnows(words))) unknown.push(`${where}: ${command}`);
    }
    expect(unknown).toEqual([]);
  });

  it('tells a command the CLI lacks from one it has', async () => {
    expect(await cliKnows(['keys', 'create'])).toBe(true);
    expect(await cliKnows(['backup', 'copy'])).toBe(true);
    expect(await cliKnows(['keys', 'frobnicate'])).toBe(false);
    expect(await cliKnows(['serve'])).toBe(false);
  });

  it('every path given to npx vitest run exists', () => {
    const runs = mentions(/\bnpx vitest run ([^`\n#]*)/g);
    expect(runs.length).toBeGreaterThan(0);
    const missing = runs.flatMap(({ match, where }) =>
      match[1]!
        .split(/\s+/)
        .filter((arg) => arg.includes('/') && !arg.startsWith('-'))
        .filter((arg) => !fs.existsSync(path.join(ROOT, arg)))
        .map((arg) => `${where}: ${arg}`),
    );
    expect(missing).toEqual([]);
  });
});
