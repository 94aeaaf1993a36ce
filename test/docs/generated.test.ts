// Text in the docs that restates code is generated from it (scripts/docs/generated.ts): this
// fails when the checked-in text differs from what the code says now.
import { ErrorBody } from '@bridgekit/contract';
import { describe, expect, it } from 'vitest';
import examples from '../../packages/contract/src/examples.json';
import { fill, renderAll, SECTIONS, table } from '../../scripts/docs/generated';
import { codeBlocks, read } from './markdown';

describe('generated sections of the docs', () => {
  it.each(renderAll())('$file is what npm run docs:generate writes', ({ actual, expected }) => {
    expect(actual, 'run npm run docs:generate and commit the result').toBe(expected);
  });

  it('the configuration table names every variable with its default', () => {
    const text = read('docs/configuration.md');
    expect(text).toContain('| `PORT`');
    expect(text).toMatch(/\| `BRIDGE_PG_POOL_SIZE` +\| `10` +\|/);
    expect(text).toMatch(/\| `BRIDGE_RATE_LIMIT_STORE` +\| `auto` +\|/);
    expect(text).not.toContain('INIT_CWD');
  });

  it('a changed table is noticed, and a file without markers is refused', () => {
    const section = SECTIONS[0]!;
    const stale = `a\n<!-- generated:${section.name}:start -->\n| old |\n<!-- generated:${section.name}:end -->\nb`;
    expect(fill(stale, section)).not.toBe(stale);
    expect(fill(fill(stale, section), section)).toBe(fill(stale, section));
    expect(() => fill('no markers here', section)).toThrow(/has no markers for variables/);
  });

  it('pads tables by characters, not bytes', () => {
    expect(table(['a', 'b'], [['–', 'x']])).toBe('| a   | b   |\n| --- | --- |\n| –   | x   |');
  });
});

describe('the error body in docs/api-rules.md', () => {
  const bodies = codeBlocks(read('docs/api-rules.md'))
    .filter((block) => block.lang === 'json' && block.code.includes('"error"'))
    .map((block) => JSON.parse(block.code) as unknown);

  it('is a body the contract accepts, and one the bridge recorded sending', () => {
    expect(bodies.length).toBeGreaterThan(0);
    const recorded = JSON.stringify(examples);
    for (const body of bodies) {
      expect(ErrorBody.parse(body)).toEqual(body);
      expect(recorded).toContain(JSON.stringify((body as { error: unknown }).error));
    }
  });

  it('names every field of the body the contract defines', () => {
    const text = read('docs/api-rules.md');
    for (const field of Object.keys(ErrorBody.shape.error.shape)) {
      expect(text).toContain(`"${field}"`);
    }
  });
});
