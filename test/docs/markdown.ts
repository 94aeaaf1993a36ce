// Reading the repository's Markdown as GitHub renders it: which files, their headings' anchors,
// their links, and their fenced code blocks.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');

/** Every Markdown file git tracks or would track (new files included), relative to the root. */
export function markdownFiles(): string[] {
  const out = execFileSync(
    'git',
    ['ls-files', '--cached', '--others', '--exclude-standard', '--', '*.md'],
    { cwd: ROOT, encoding: 'utf8' },
  );
  return [...new Set(out.split('\n').filter(Boolean))]
    .filter((file) => fs.existsSync(path.join(ROOT, file)))
    .sort();
}

export const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

const FENCE = /^\s*(```|~~~)/;

/** The lines outside fenced code blocks, with their 1-based numbers. */
export function proseLines(text: string): { line: string; number: number }[] {
  const lines: { line: string; number: number }[] = [];
  let fenced = false;
  text.split('\n').forEach((line, i) => {
    if (FENCE.test(line)) fenced = !fenced;
    else if (!fenced) lines.push({ line, number: i + 1 });
  });
  return lines;
}

/** A heading's anchor as GitHub makes it: the rendered text, lower case, punctuation dropped. */
export function slug(heading: string): string {
  const text = heading
    .replace(/`([^`]*)`/g, '$1')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/(\*\*|__)(.*?)\1/g, '$2')
    .replace(/(^|\W)[*_](\S.*?)[*_](?=\W|$)/g, '$1$2');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a file's headings give, numbered as GitHub numbers repeated ones (-1, -2 …). */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const { line } of proseLines(text)) {
    const heading = line.match(/^#{1,6}\s+(.*?)\s*#*\s*$/)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  for (const match of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) result.add(match[1]!);
  return result;
}

export interface Link {
  target: string;
  line: number;
}

/** Inline links and images outside code (fenced blocks and code spans), as written. */
export function links(text: string): Link[] {
  const result: Link[] = [];
  for (const { line, number } of proseLines(text)) {
    const prose = line.replace(/`[^`]*`/g, '');
    for (const match of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      result.push({ target: match[1]!, line: number });
    }
    for (const match of prose.matchAll(/<a\s[^>]*href="([^"]+)"/g)) {
      result.push({ target: match[1]!, line: number });
    }
  }
  return result;
}

export interface CodeBlock {
  lang: string;
  code: string;
  line: number;
}

/** The fenced code blocks of a file, with their info string's first word. */
export function codeBlocks(text: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let open: { lang: string; line: number; indent: number; body: string[] } | undefined;
  text.split('\n').forEach((line, i) => {
    const fence = line.match(/^(\s*)(```|~~~)\s*([\w-]*)/);
    if (!open && fence) {
      open = { lang: fence[3]!, line: i + 1, indent: fence[1]!.length, body: [] };
    } else if (open && fence && !fence[3]) {
      blocks.push({ lang: open.lang, code: open.body.join('\n'), line: open.line });
      open = undefined;
    } else if (open) {
      open.body.push(line.slice(Math.min(open.indent, line.search(/\S|$/))));
    }
  });
  return blocks;
}
