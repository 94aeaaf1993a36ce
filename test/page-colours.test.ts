// The page colours (background and text, light and dark) are written in four places that no
// build step joins: the kit's theme.css (the source), the full-embed page's body (embed.css),
// the bridge's message page without the bundle (an inline style), and Storybook's frame. One
// changed alone would show a host a page whose body and components disagree; this test keeps
// them one palette.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderMessagePage } from '../server/src/routes/embed-page';

const root = path.resolve(import.meta.dirname, '..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

type Pair = { light: string; dark: string };
const HEX = '(#[0-9a-fA-F]{3,8})';

/** A hex colour in one spelling: lower case, #rgb as #rrggbb. */
const hex = (colour: string | undefined) =>
  colour?.toLowerCase().replace(/^#([0-9a-f])([0-9a-f])([0-9a-f])$/, '#$1$1$2$2$3$3');

/** The light-dark() pair `declaration` is given in `text` (one occurrence, exactly). */
function pairOf(text: string, declaration: string): Pair {
  const matches = [
    ...text.matchAll(new RegExp(`${declaration}light-dark\\(${HEX},\\s*${HEX}\\)`, 'g')),
  ];
  expect(matches, `${declaration} in one place`).toHaveLength(1);
  return { light: hex(matches[0]![1])!, dark: hex(matches[0]![2])! };
}

/** theme.css's own values: the fallbacks of its private --_bk-color-bg and --_bk-color-text. */
function themePalette() {
  const css = read('packages/react/src/styles/theme.css');
  return {
    background: pairOf(css, String.raw`--_bk-color-bg: var\(--bk-color-bg,\s*`),
    text: pairOf(css, String.raw`--_bk-color-text: var\(--bk-color-text,\s*`),
  };
}

describe('the page colours', () => {
  const theme = themePalette();

  it('are light and dark pairs in theme.css', () => {
    expect(theme.background.light).not.toBe(theme.background.dark);
    expect(theme.text.light).not.toBe(theme.text.dark);
  });

  it("are the full-embed page body's (embed.css)", () => {
    const body = read('packages/react/src/embed/embed.css').match(/\nbody \{[^}]*\}/)?.[0] ?? '';
    expect(pairOf(body, String.raw`\bbackground:\s*`)).toEqual(theme.background);
    expect(pairOf(body, String.raw`\bcolor:\s*`)).toEqual(theme.text);
  });

  it("are Storybook's frame's (.storybook/preview.tsx)", () => {
    const preview = read('.storybook/preview.tsx');
    expect(pairOf(preview, String.raw`\bbackground:\s*'`)).toEqual(theme.background);
    expect(pairOf(preview, String.raw`\bcolor:\s*'`)).toEqual(theme.text);
  });

  it("are the bridge's message page's inline style, light and under prefers-color-scheme: dark", () => {
    const html = renderMessagePage('Title', 'Detail');
    const style = html.match(/<style>([\s\S]*?)<\/style>/)?.[1] ?? '';
    const dark = style.match(/@media \(prefers-color-scheme:\s*dark\)\{(.*?\})\}/)?.[1] ?? '';
    const light = style.replace(/@media[^{]*\{.*?\}\}/, '');
    const bodyColours = (css: string) => {
      const body = css.match(/body\{([^}]*)\}/)?.[1] ?? '';
      return {
        background: hex(body.match(/(?:^|;)background:(#[0-9a-fA-F]+)/)?.[1]),
        color: hex(body.match(/(?:^|;)color:(#[0-9a-fA-F]+)/)?.[1]),
      };
    };
    expect(bodyColours(light)).toEqual({
      background: theme.background.light,
      color: theme.text.light,
    });
    expect(bodyColours(dark)).toEqual({
      background: theme.background.dark,
      color: theme.text.dark,
    });
  });
});
