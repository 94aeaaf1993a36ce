import type { Page } from 'playwright-core';

/** What decides how an element looks and where it sits. */
const PROPERTIES = [
  'display',
  'position',
  'float',
  'box-sizing',
  'margin-top',
  'margin-right',
  'margin-bottom',
  'margin-left',
  'padding-top',
  'padding-right',
  'padding-bottom',
  'padding-left',
  'border-top-width',
  'border-right-width',
  'border-bottom-width',
  'border-left-width',
  'border-top-style',
  'border-top-color',
  'border-bottom-color',
  'border-top-left-radius',
  'border-bottom-right-radius',
  'background-color',
  'box-shadow',
  'color',
  'font-family',
  'font-size',
  'font-weight',
  'line-height',
  'letter-spacing',
  'text-transform',
  'text-decoration-line',
  'list-style-type',
  'opacity',
];

export type Snapshot = Array<Record<string, string | number>>;

/**
 * Every element of the kit root matched by `selector` (it included): tag, class, box relative
 * to the root, and (but for SVG) the computed PROPERTIES, in document order.
 */
export function snapshot(page: Page, selector: string): Promise<Snapshot> {
  return page.evaluate(
    ({ selector, properties }) => {
      const root = document.querySelector(selector);
      if (!root) throw new Error(`no ${selector}`);
      const origin = root.getBoundingClientRect();
      const round = (n: number) => Math.round(n * 2) / 2;
      return [root, ...root.querySelectorAll('*')].map((el) => {
        const box = el.getBoundingClientRect();
        const style = getComputedStyle(el);
        // No box of its own (display: contents or none): a rect at the viewport's origin.
        const boxed = style.display !== 'contents' && style.display !== 'none';
        const entry: Record<string, string | number> = {
          element: `${el.tagName.toLowerCase()}.${el.getAttribute('class') ?? ''}`,
          x: boxed ? round(box.left - origin.left) : 0,
          y: boxed ? round(box.top - origin.top) : 0,
          width: round(box.width),
          height: round(box.height),
        };
        // SVG keeps its presentation attributes, outside the kit's layer: its box is what counts.
        if (el instanceof SVGElement) return entry;
        for (const name of properties) entry[name] = style.getPropertyValue(name);
        return entry;
      });
    },
    { selector, properties: PROPERTIES },
  );
}
