// The README's code samples compile: each ```ts / ```tsx block is type-checked, as a module of
// its own, against the packages (from source) and the types a host has (React, Express, Node).
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { codeBlocks, ROOT, read } from './markdown';

const OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  customConditions: ['bridgekit-source'],
  jsx: ts.JsxEmit.ReactJSX,
  strict: true,
  noUncheckedIndexedAccess: true,
  esModuleInterop: true,
  resolveJsonModule: true,
  isolatedModules: true,
  verbatimModuleSyntax: true,
  skipLibCheck: true,
  noEmit: true,
  types: ['node'],
};

interface Sample {
  file: string;
  code: string;
  where: string;
}

// The last program, handed to the next so the packages' and libraries' files are parsed once.
let previous: ts.Program | undefined;

/** The type errors of each sample, as `where: message` lines (none: it compiles). */
function typeErrors(samples: Sample[]): string[] {
  const byFile = new Map(samples.map((s) => [s.file, s]));
  const host = ts.createCompilerHost(OPTIONS);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (file) => byFile.has(file) || fileExists(file);
  host.readFile = (file) => byFile.get(file)?.code ?? readFile(file);
  host.getSourceFile = (file, language, ...rest) => {
    const sample = byFile.get(file);
    return sample
      ? ts.createSourceFile(file, sample.code, language, true)
      : getSourceFile(file, language, ...rest);
  };
  const program = ts.createProgram([...byFile.keys()], OPTIONS, host, previous);
  previous = program;
  return samples.flatMap((sample) =>
    ts.getPreEmitDiagnostics(program, program.getSourceFile(sample.file)).map((d) => {
      const line =
        d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : 0;
      return `${sample.where} (+${line + 1}): ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    }),
  );
}

/** The README's ts/tsx blocks, each as a file under test/docs (so packages resolve from here). */
function readmeSamples(): Sample[] {
  return codeBlocks(read('README.md'))
    .filter((block) => block.lang === 'ts' || block.lang === 'tsx')
    .map((block, i) => ({
      file: path.join(ROOT, 'test/docs', `readme-sample-${i}.${block.lang}`),
      code: block.code,
      where: `README.md:${block.line}`,
    }));
}

describe("the README's code samples", () => {
  const samples = readmeSamples();

  it('include a backend and a React page, using the packages', () => {
    expect(samples.some((s) => s.code.includes("from '@bridgekit/node'"))).toBe(true);
    expect(samples.some((s) => s.code.includes("from '@bridgekit/react'"))).toBe(true);
  });

  it('type-check against the packages', { timeout: 120_000 }, () => {
    expect(typeErrors(samples)).toEqual([]);
  });

  it('would fail with a prop the kit does not take or a missing option', {
    timeout: 120_000,
  }, () => {
    const bad = samples.map((s) => ({
      ...s,
      code: s.code
        .replace('<DataSourceForm orgId={orgId}', '<DataSourceForm organization={orgId}')
        .replace('orgId: ORG_ID,', ''),
    }));
    const errors = typeErrors(bad);
    expect(errors.some((e) => /organization/.test(e))).toBe(true);
    expect(errors.some((e) => /orgId/.test(e))).toBe(true);
  });
});
