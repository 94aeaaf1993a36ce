import type { Scenarios } from './scenario';

export const embedScenarios: Scenarios = {
  embedPage: {
    summary: "The page's shell; the kit's script fills it in",
    call: (w) => ({ params: { slug: w.org.slug }, headers: { Cookie: w.sessionCookie } }),
    errors: {
      Unauthorized: {
        summary: 'Without the session cookie (or after it expired)',
        call: (w) => ({ params: { slug: w.org.slug } }),
      },
      NotFound: {
        summary: 'No organization with full embed has this slug',
        call: (w) => ({ params: { slug: 'no-such-org' }, headers: { Cookie: w.sessionCookie } }),
      },
    },
  },
  embedSession: {
    call: (w) => ({ headers: { 'X-Bridgekit-Embed': '1', Cookie: w.sessionCookie } }),
    errors: {
      Unauthorized: {
        summary: 'Without the session cookie',
        call: () => ({ headers: { 'X-Bridgekit-Embed': '1' } }),
      },
      Forbidden: {
        summary: 'Without X-Bridgekit-Embed: 1',
        call: (w) => ({ headers: { Cookie: w.sessionCookie } }),
      },
    },
  },
  embedAsset: {
    call: () => ({ params: { file: 'embed.css' } }),
    errors: {
      NotFound: { summary: 'Not one of the files', call: () => ({ params: { file: 'main.js' } }) },
    },
  },
};
