// The parts of the docs that restate code: each is rendered from its one source and written
// between marker comments (`npm run docs:generate`); test/docs/generated.test.ts fails when the
// checked-in text differs from what this renders.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ErrorCode, FieldCode, statusOf } from '@bridgekit/contract';
import { ERROR_CODE_DOCS, FIELD_CODE_DOCS } from '../../packages/contract/src/error-code-docs';
import { Env } from '../../server/src/config';
import { CONFIG_REFERENCE } from '../../server/src/config-reference';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface GeneratedSection {
  /** Relative to the repository root. */
  file: string;
  /** The name in `<!-- generated:NAME:start -->` … `<!-- generated:NAME:end -->`. */
  name: string;
  /** Where it comes from, said in the start marker. */
  source: string;
  render: () => string;
}

/** A Markdown table with its columns padded, as the formatter of the rest of the docs lays them. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const width = (i: number) => Math.max(3, ...[header, ...rows].map((r) => [...r[i]!].length));
  const widths = header.map((_, i) => width(i));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c, i) => c + ' '.repeat(widths[i]! - [...c].length)).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

const code = (value: unknown) => `\`${String(value)}\``;

function configTable(): string {
  const shape = Env.shape as Record<string, { safeParse(v: unknown): { data?: unknown } }>;
  const rows = Object.entries(CONFIG_REFERENCE).map(([name, doc]) => {
    const fallback = shape[name]!.safeParse(undefined).data;
    const byDefault = doc.default ?? (fallback === undefined ? '–' : code(fallback));
    return [code(name), byDefault, doc.meaning];
  });
  return table(['variable', 'default', 'meaning'], rows);
}

function errorCodeTable(): string {
  const rows = ErrorCode.options.map((name) => {
    const [title, meaning] = ERROR_CODE_DOCS[name];
    return [code(name), String(statusOf[title]), code(title), meaning];
  });
  return table(['`code`', 'status', '`title`', 'meaning'], rows);
}

function fieldCodeTable(): string {
  const rows = FieldCode.options.map((name) => {
    const own = (FIELD_CODE_DOCS as Record<string, string>)[name];
    return [code(name), own ?? ERROR_CODE_DOCS[name as ErrorCode][1]];
  });
  return table(['`fieldCodes` value', 'meaning'], rows);
}

export const SECTIONS: readonly GeneratedSection[] = [
  {
    file: 'docs/configuration.md',
    name: 'variables',
    source: 'server/src/config-reference.ts and the defaults of server/src/config.ts',
    render: configTable,
  },
  {
    file: 'docs/api-rules.md',
    name: 'error-codes',
    source: 'packages/contract/src/error-code-docs.ts',
    render: errorCodeTable,
  },
  {
    file: 'docs/api-rules.md',
    name: 'field-codes',
    source: 'packages/contract/src/error-code-docs.ts',
    render: fieldCodeTable,
  },
];

const start = (s: GeneratedSection) =>
  `<!-- generated:${s.name}:start: npm run docs:generate writes this from ${s.source} -->`;
const end = (s: GeneratedSection) => `<!-- generated:${s.name}:end -->`;

/** `text` with the section between its markers replaced by what it renders now. */
export function fill(text: string, section: GeneratedSection): string {
  const pattern = new RegExp(
    `<!-- generated:${section.name}:start[^>]*-->[\\s\\S]*?<!-- generated:${section.name}:end -->`,
  );
  if (!pattern.test(text)) {
    throw new Error(`${section.file} has no markers for ${section.name}: add ${end(section)}`);
  }
  return text.replace(pattern, () => `${start(section)}\n\n${section.render()}\n\n${end(section)}`);
}

/** Every file with generated sections, as it is on disk and as it should be. */
export function renderAll(): { file: string; actual: string; expected: string }[] {
  const files = [...new Set(SECTIONS.map((s) => s.file))];
  return files.map((file) => {
    const actual = fs.readFileSync(path.join(ROOT, file), 'utf8');
    const expected = SECTIONS.filter((s) => s.file === file).reduce(fill, actual);
    return { file, actual, expected };
  });
}
