import type { Scenarios } from './scenario';

export const organizationScenarios: Scenarios = {
  listOrganizations: {
    call: () => ({ query: { limit: '2' } }),
    errors: {
      ValidationError: {
        summary: '`limit` out of range',
        call: () => ({ query: { limit: '500' } }),
      },
    },
  },
  createOrganization: {
    summary: 'Created, with its jwtSecret (asked for with include=jwtSecret)',
    call: () => ({
      query: { include: 'jwtSecret' },
      body: {
        name: 'Globex Reporting',
        embedAllowedOrigins: ['https://reports.globex.example'],
        fullEmbedEnabled: true,
      },
    }),
    errors: {
      ValidationError: {
        summary: 'An empty name and a slug with capitals',
        call: () => ({ body: { name: '', slug: 'Globex' } }),
      },
      Conflict: {
        summary: 'The slug is taken',
        call: (w) => ({ body: { name: 'Acme again', slug: w.org.slug } }),
      },
      Forbidden: {
        summary: 'An embed session cannot create organizations',
        call: () => ({ as: 'session', body: { name: 'From an embed session' } }),
      },
    },
  },
  getOrganization: {
    call: (w) => ({ params: { orgId: w.org.id } }),
    errors: {
      ValidationError: {
        summary: 'An unknown `include`',
        call: (w) => ({ params: { orgId: w.org.id }, query: { include: 'everything' } }),
      },
      NotFound: {
        summary: 'The caller is not a member of it',
        call: (w) => ({ as: 'outsider', params: { orgId: w.org.id } }),
      },
    },
  },
  updateOrganization: {
    summary: 'Renamed, with a new allow-list (it replaces the old one)',
    call: async (w) => ({
      params: { orgId: (await w.newOrganization('Initech')).id },
      body: { name: 'Initech Reporting', embedAllowedOrigins: ['https://*.initech.example'] },
    }),
    errors: {
      ValidationError: {
        summary: 'An origin with a path, and onboarding moved back',
        call: (w) => ({
          params: { orgId: w.org.id },
          body: {
            embedAllowedOrigins: ['https://app.acme.example/reports'],
            onboardingStatus: 'LEGACY',
          },
        }),
      },
      NotFound: {
        summary: 'The caller is not a member of it',
        call: (w) => ({ as: 'outsider', params: { orgId: w.org.id }, body: { name: 'Mine now' } }),
      },
      Forbidden: {
        summary: 'A MEMBER cannot change the organization',
        call: (w) => ({ as: 'member', params: { orgId: w.org.id }, body: { name: 'Renamed' } }),
      },
      Conflict: {
        summary: 'The slug is taken',
        call: async (w) => ({
          params: { orgId: (await w.newOrganization('Umbrella')).id },
          body: { slug: w.org.slug },
        }),
      },
    },
  },
  deleteOrganization: {
    summary: 'Deleted, with its data sources and memberships; the answer is the record as it was',
    call: async (w) => ({ params: { orgId: (await w.newOrganization('Hooli')).id } }),
    errors: {
      NotFound: {
        summary: 'The caller is not a member of it',
        call: (w) => ({ as: 'outsider', params: { orgId: w.org.id } }),
      },
      Forbidden: {
        summary: 'A MEMBER cannot delete the organization',
        call: (w) => ({ as: 'member', params: { orgId: w.org.id } }),
      },
    },
  },
  rotateJwtSecret: {
    summary:
      'A new jwtSecret; the previous one verifies until previousJwtSecretExpiresAt, and every session signed in until now ends (endSessions)',
    call: async (w) => ({
      params: { orgId: (await w.newOrganization('Vandelay')).id },
      body: { endSessions: true },
    }),
    errors: {
      ValidationError: {
        summary: 'endSessions is true or false',
        call: (w) => ({ params: { orgId: w.org.id }, body: { endSessions: 'yes' } }),
      },
      NotFound: {
        summary: 'The caller is not a member of it',
        call: (w) => ({ as: 'outsider', params: { orgId: w.org.id } }),
      },
      Forbidden: {
        summary: 'An embed session never handles the secret, whatever its role',
        call: (w) => ({ as: 'session', params: { orgId: w.org.id } }),
      },
    },
  },
};
