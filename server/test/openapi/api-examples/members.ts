import type { Scenarios } from './scenario';
import type { World } from './world';

// A success request runs again for the generic errors (401, 429…): each run adds its own member.
let added = 0;
async function addMember(w: World, name: string) {
  added += 1;
  const res = await w.send('addMember', {
    params: { orgId: w.org.id },
    body: { email: `${name}${added}@acme.example`, role: 'MEMBER' },
  });
  return res.body.data.id as string;
}

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
  updateMember: {
    summary: 'Made an ADMIN',
    call: async (w) => ({
      params: { orgId: w.org.id, id: await addMember(w, 'dorothy') },
      body: { role: 'ADMIN' },
    }),
    errors: {
      ValidationError: {
        summary: 'An unknown role',
        call: (w) => ({ params: { orgId: w.org.id, id: w.member.id }, body: { role: 'OWNER' } }),
      },
      NotFound: {
        summary: 'No such member in the organization',
        call: (w) => ({
          params: { orgId: w.org.id, id: 'mem_does_not_exist' },
          body: { role: 'ADMIN' },
        }),
      },
      Forbidden: {
        summary: 'A MEMBER cannot change roles, its own included',
        call: (w) => ({
          as: 'member',
          params: { orgId: w.org.id, id: w.member.id },
          body: { role: 'ADMIN' },
        }),
      },
      Conflict: {
        summary: 'The last ADMIN cannot be demoted',
        call: async (w) => {
          const org = await w.newOrganization('Soylent');
          const members = await w.send('listMembers', { params: { orgId: org.id } });
          const admin = members.body.data[0].id as string;
          return { params: { orgId: org.id, id: admin }, body: { role: 'MEMBER' } };
        },
      },
    },
  },
  removeMember: {
    summary: 'Removed; the user stays, the answer is the membership as it was',
    call: async (w) => ({ params: { orgId: w.org.id, id: await addMember(w, 'mary') } }),
    errors: {
      NotFound: {
        summary: 'No such member in the organization',
        call: (w) => ({ params: { orgId: w.org.id, id: 'mem_does_not_exist' } }),
      },
      Forbidden: {
        summary: 'A MEMBER can remove itself, not others',
        call: async (w) => {
          const members = await w.send('listMembers', { params: { orgId: w.org.id } });
          const admin = members.body.data.find((m: { role: string }) => m.role === 'ADMIN').id;
          return { as: 'member', params: { orgId: w.org.id, id: admin as string } };
        },
      },
      Conflict: {
        summary: 'The last ADMIN cannot be removed',
        call: async (w) => {
          const org = await w.newOrganization('Cyberdyne');
          const members = await w.send('listMembers', { params: { orgId: org.id } });
          return { params: { orgId: org.id, id: members.body.data[0].id as string } };
        },
      },
    },
  },
};
