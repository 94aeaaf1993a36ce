import type { Scenarios } from './scenario';

export const serviceScenarios: Scenarios = {
  openApi: {
    summary: 'The start of this document',
    call: () => ({}),
    abridge: (body) => {
      const { openapi, info, servers } = body as Record<string, unknown>;
      return { openapi, info, servers, paths: {} };
    },
  },
  docs: { summary: 'The page; Scalar renders the reference into it', call: () => ({}) },
  docsAsset: {
    summary: "The page's start-up script",
    call: () => ({ params: { file: 'docs.js' } }),
    errors: {
      NotFound: { summary: 'Not one of the files', call: () => ({ params: { file: 'app.js' } }) },
    },
  },
  health: { call: () => ({}) },
  live: { call: () => ({}) },
  ready: { call: () => ({}) },
};
