import { createSsoToken } from '@bridgekit/node';
import type { Scenarios } from './scenario';
import { HOST_ORIGIN, MEMBER_USER } from './world';

const NEW_USER = {
  email: 'linus@acme.example',
  firstName: 'Linus',
  lastName: 'Example',
  role: 'MEMBER' as const,
  groups: ['finance'],
};

export const ssoScenarios: Scenarios = {
  ssoExchange: {
    summary: 'Signed in; the first sign-in of a user creates the user and the membership',
    call: async (w) => ({ body: { jwt: await w.ssoToken(NEW_USER) } }),
    errors: {
      ValidationError: { summary: 'No token', call: () => ({ body: { jwt: '' } }) },
      Unauthorized: {
        summary: 'A token signed with another secret',
        call: async (w) => ({
          body: {
            jwt: await createSsoToken({
              secret: 'not-the-organization-secret-0123456789abcdef',
              orgId: w.org.id,
              user: MEMBER_USER,
            }),
          },
        }),
      },
      Forbidden: {
        summary: 'From a page whose origin the organization does not allow',
        call: async (w) => ({
          body: { jwt: await w.ssoToken() },
          headers: { origin: 'https://elsewhere.example' },
        }),
      },
    },
  },
  ssoBrowser: {
    summary:
      "Signed in: the frame goes to the embed page with a single-use code in the fragment (Basedash's SDK options accepted)",
    call: async (w) => ({
      query: { jwt: await w.ssoToken(), theme: 'dark', hide_org_name: 'true', hide_chat: 'false' },
      headers: { Referer: `${HOST_ORIGIN}/reports` },
    }),
    errors: {
      ValidationError: {
        summary: 'No token',
        call: () => ({ headers: { Referer: `${HOST_ORIGIN}/reports` } }),
      },
      Unauthorized: {
        summary: 'A token used twice',
        call: async (w) => {
          const jwt = await w.ssoToken();
          const first = { query: { jwt }, headers: { Referer: `${HOST_ORIGIN}/reports` } };
          await w.send('ssoBrowser', first);
          return first;
        },
      },
      Forbidden: {
        summary: 'Framed by a page the organization does not allow',
        call: async (w) => ({
          query: { jwt: await w.ssoToken() },
          headers: { Referer: 'https://elsewhere.example/page' },
        }),
      },
    },
  },
  ssoSession: {
    summary: "The session's member, with the role it has now, and when the session ends",
    call: () => ({ as: 'session' }),
    errors: {
      Forbidden: { summary: 'An API key is not a session', call: () => ({ as: 'admin' }) },
    },
  },
  ssoRefresh: {
    summary: 'A new token for the same session; never past absoluteExpiresAt',
    call: () => ({ as: 'session' }),
    errors: {
      Forbidden: { summary: 'An API key is not a session', call: () => ({ as: 'admin' }) },
    },
  },
  ssoLogout: {
    summary: 'The session has ended, on every instance',
    call: async (w) => ({
      as: 'anonymous',
      headers: { Authorization: `Bearer ${await w.newSession()}` },
    }),
    errors: {
      Unauthorized: {
        summary: 'An API key is not a session; logout needs a session token',
        call: () => ({ as: 'admin' }),
      },
      Forbidden: {
        summary: 'From a page whose origin the organization does not allow',
        call: async (w) => ({
          as: 'anonymous',
          headers: {
            Authorization: `Bearer ${await w.newSession()}`,
            Origin: 'https://elsewhere.example',
          },
        }),
      },
    },
  },
};
