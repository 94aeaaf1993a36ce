import type { Scenarios } from './scenario';

const LOOPBACK = /^http:\/\/127\.0\.0\.1:\d+$/;
const EXAMPLE_ORIGIN = 'https://bridge.acme.example';

export const serviceScenarios: Scenarios = {
  openApi: {
    summary: 'The start of this document',
    call: () => ({}),
    abridge: (body) => {
      const { openapi, info, servers } = body as { servers: { url: string }[] } & Record<
        string,
        unknown
      >;
      // The test bridge's origin (a random loopback port) as a stable example origin.
      const shown = servers.map((s) => ({ ...s, url: s.url.replace(LOOPBACK, EXAMPLE_ORIGIN) }));
      return { openapi, info, servers: shown, paths: {} };
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
