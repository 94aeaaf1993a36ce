import { afterAll, expect } from 'vitest';

// The files of the react project can share one jsdom document (`isolate: false`): each must
// leave it empty, or the next file's queries and axe checks meet its DOM and styles.
afterAll(() => {
  if (typeof document === 'undefined') return;
  expect(document.body.innerHTML, 'DOM this file left in the shared document').toBe('');
  // jsdom keeps applying a <style> removed with an ancestor rather than by itself.
  const detached = [...document.styleSheets].filter((sheet) => !sheet.ownerNode?.isConnected);
  expect(detached.length, 'style sheets of removed <style> elements still applied').toBe(0);
});
