import { composeStories, setProjectAnnotations } from '@storybook/react-vite';
import axe from 'axe-core';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import preview from '../../../.storybook/preview';
import * as dataSourceForm from '../../../stories/data-source-form.stories';
import * as dataSourceList from '../../../stories/data-source-list.stories';
import * as embedDataSources from '../../../stories/embed-data-sources.stories';
import * as memberCard from '../../../stories/member-card.stories';
import * as memberList from '../../../stories/member-list.stories';
import * as orgPicker from '../../../stories/org-picker.stories';
import * as organizationSettings from '../../../stories/organization-settings.stories';
import * as schemaBrowser from '../../../stories/schema-browser.stories';
import * as theming from '../../../stories/theming.stories';

// Every story, rendered with the preview's decorators and its play function, must pass axe.
setProjectAnnotations([preview]);
// Play functions type into forms; jsdom is slow at that on a busy CI machine.
vi.setConfig({ testTimeout: 30_000 });

// Storybook hands play functions a `userEvent` only where a clipboard exists; jsdom has none.
if (!navigator.clipboard) {
  Object.defineProperty(navigator, 'clipboard', { value: {}, configurable: true });
}

const files = {
  dataSourceForm,
  dataSourceList,
  embedDataSources,
  memberCard,
  memberList,
  orgPicker,
  organizationSettings,
  schemaBrowser,
  theming,
};

// Storybook unmounts a story only when the next one runs or loads: `load` unmounts the last one,
// so that its canvas does not stay in the document after this file.
let last: { load: () => Promise<void> } | undefined;
afterAll(() => last?.load());
// jsdom keeps applying a <style> removed with its ancestors (the canvas, when the story
// unmounts), so the host CSS of one story would restyle every later one: remove them directly.
afterEach(() => {
  for (const style of document.body.querySelectorAll('style')) style.remove();
});

describe.each(Object.entries(files))('%s stories', (_, file) => {
  // One story type for all files: each file's own args do not matter here.
  const stories = Object.entries(composeStories(file as typeof dataSourceForm));

  it.each(stories)('%s has no axe violations', async (_name, Story) => {
    last = Story;
    await Story.run();
    // Let pending effects and fetches settle.
    await new Promise((resolve) => setTimeout(resolve, 50));

    // `region` is a page-level rule; Storybook's a11y addon turns it off for stories too.
    const { violations } = await axe.run(document.body, { rules: { region: { enabled: false } } });
    expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(', ')}`)).toEqual([]);
  });
});
