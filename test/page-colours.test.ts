// The page colours (background and text, light and dark) are written in four places that no
// build step joins: the kit's theme.css (the source, whose dark palette is written twice: for
// `dark`, and for `auto` on a dark system), the full-embed page's body (embed.css),
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

/** The `--_bk-scheme-<name>: <value>` declarations of one rule's body, by name. */
function schemeOf(body: string): Record<string, string> {
  return Object.fromEntries(
    [...body.matchAll(/--_bk-scheme-([\w-]+):\s*([^;]+);/g)].map((m) => [m[1], m[2]]),
  );
}

/** The body of the one rule whose selector is `selector`, exactly. */
function ruleBody(css: string, selector: string): string {
  const at = css.indexOf(`${selector} {`);
  expect(at, selector).toBeGreaterThan(-1);
  expect(css.indexOf(`${selector} {`, at + 1), `${selector} once`).toBe(-1);
  return css.slice(at, css.indexOf('}', at));
}

const DARK = ':where([data-bk-theme="dark"] .bk:not([data-bk-theme]), .bk[data-bk-theme="dark"])';
const AUTO = ':where([data-bk-theme="auto"] .bk:not([data-bk-theme]), .bk[data-bk-theme="auto"])';

/** theme.css's palettes: light on every root, dark by data-bk-theme, and auto's dark one. */
function themePalettes() {
  const css = read('packages/react/src/styles/theme.css');
  const light = schemeOf(css.slice(0, css.indexOf(DARK)));
  const dark = schemeOf(ruleBody(css, DARK));
  const autoDark = schemeOf(
    ruleBody(css.slice(css.indexOf('@media (prefers-color-scheme: dark)')), AUTO),
  );
  return { light, dark, autoDark };
}

/** theme.css's own page colours: the palettes' bg and text. */
function themePalette() {
  const { light, dark } = themePalettes();
  return {
    background: { light: hex(light.bg)!, dark: hex(dark.bg)! },
    text: { light: hex(light.text)!, dark: hex(dark.text)! },
  };
}

describe('the page colours', () => {
  const theme = themePalette();

  it('are one dark palette in theme.css, for dark and for auto on a dark system', () => {
    const { light, dark, autoDark } = themePalettes();
    expect(Object.keys(dark).sort()).toEqual(Object.keys(light).sort());
    expect(Object.keys(dark).length).toBeGreaterThanOrEqual(16);
    expect(autoDark).toEqual(dark);
  });

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
