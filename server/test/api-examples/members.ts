import type { Scenarios } from './scenario';

export const memberScenarios: Scenarios = {
  listMembers: {
    call: (w) => ({ params: { orgId: w.org.id } }),
    errors: {
      ValidationError: {
        summary: '`limit` is not a number',
        call: (w) => ({ params: { orgId: w.org.id }, query: { limit: 'ten' } }),
      },
      NotFound: {
        summary: 'The caller is not a member of the organization',
        call: (w) => ({ as: 'outsider', params: { orgId: w.org.id } }),
      },
    },
  },
  addMember: {
    call: (w) => ({
      params: { orgId: w.org.id },
      body: { email: 'katherine@acme.example', role: 'ADMIN' },
    }),
    errors: {
      ValidationError: {
        summary: 'Not an email address, and an unknown role',
        call: (w) => ({ params: { orgId: w.org.id }, body: { email: 'katherine', role: 'OWNER' } }),
      },
      NotFound: {
        summary: 'The caller is not a member of the organization',
        call: (w) => ({
          as: 'outsider',
          params: { orgId: w.org.id },
          body: { email: 'someone@example.com', role: 'MEMBER' },
        }),
      },
      Forbidden: {
        summary: 'A MEMBER cannot add members',
        call: (w) => ({
          as: 'member',
          params: { orgId: w.org.id },
          body: { email: 'someone@example.com', role: 'MEMBER' },
        }),
      },
      Conflict: {
        summary: 'Already a member',
        call: (w) => ({
          params: { orgId: w.org.id },
          body: { email: w.member.user.email, role: 'MEMBER' },
        }),
      },
    },
  },
  getMember: {
    call: (w) => ({ params: { orgId: w.org.id, id: w.member.id } }),
    errors: {
      NotFound: {
        summary: 'No such member in the organization',
        call: (w) => ({ params: { orgId: w.org.id, id: 'mem_does_not_exist' } }),
      },
    },
  },
};
