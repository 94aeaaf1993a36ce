import type { Scenarios } from './scenario';
import { HOST_ORIGIN } from './world';

// What the browser adds to the embed page's own POST: it comes from the bridge's origin.
const SAME_ORIGIN = { 'Sec-Fetch-Site': 'same-origin', Origin: 'https://bridge.acme.example' };

export const embedScenarios: Scenarios = {
  embedPage: {
    summary:
      "The page's shell, the same for everyone; its script signs in with the fragment's code",
    call: (w) => ({ params: { slug: w.org.slug } }),
    errors: {
      NotFound: {
        summary: 'No organization with full embed has this slug',
        call: () => ({ params: { slug: 'no-such-org' } }),
      },
    },
  },
  embedSession: {
    summary: 'The code of the sign-in redirect, traded once for a bearer session',
    call: async (w) => ({
      body: { code: await w.handoffCode(), framingOrigin: HOST_ORIGIN },
      headers: { 'X-Bridgekit-Embed': '1', ...SAME_ORIGIN },
    }),
    errors: {
      Unauthorized: {
        summary: 'A code used twice (the session its first use started is ended too)',
        call: async (w) => {
          const first = {
            body: { code: await w.handoffCode(), framingOrigin: HOST_ORIGIN },
            headers: { 'X-Bridgekit-Embed': '1', ...SAME_ORIGIN },
          };
          await w.send('embedSession', first);
          return first;
        },
      },
      Forbidden: {
        summary: 'Without X-Bridgekit-Embed: 1',
        call: async (w) => ({ body: { code: await w.handoffCode() } }),
      },
      ValidationError: {
        summary: 'No code',
        call: () => ({ body: {}, headers: { 'X-Bridgekit-Embed': '1' } }),
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
