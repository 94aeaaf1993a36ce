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
};
