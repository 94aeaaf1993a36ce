import type { Scenarios } from './scenario';
import type { World } from './world';

const EVENTS = ['data_source.health_changed', 'data_source.sync_failed', 'member.added'];
const NO_SUCH = 'whe_does_not_exist';

/** A new endpoint of the world's organization (each scenario that changes one makes its own). */
async function newEndpoint(w: World, url = 'https://hooks.acme.example/bridge') {
  const res = await w.send('createWebhookEndpoint', {
    params: { orgId: w.org.id },
    body: { url, eventTypes: EVENTS, description: 'Alerts for the ops channel' },
  });
  return res.body.data.id as string;
}

const memberRefused = (what: string) => ({
  summary: `A MEMBER cannot ${what}`,
  call: async (w: World) => ({
    as: 'member' as const,
    params: { orgId: w.org.id, id: await newEndpoint(w) },
  }),
});
const unknown = {
  summary: 'No such endpoint in the organization',
  call: (w: World) => ({ params: { orgId: w.org.id, id: NO_SUCH } }),
};

export const webhookScenarios: Scenarios = {
  listWebhookEndpoints: {
    call: async (w) => {
      await newEndpoint(w);
      return { params: { orgId: w.org.id }, query: { limit: '1' } };
    },
    errors: {
      ValidationError: {
        summary: '`limit` is not a number',
        call: (w) => ({ params: { orgId: w.org.id }, query: { limit: 'ten' } }),
      },
      NotFound: {
        summary: 'The caller is not a member of the organization',
        call: (w) => ({ as: 'outsider', params: { orgId: w.org.id } }),
      },
      Forbidden: {
        summary: 'A MEMBER cannot see webhook endpoints',
        call: (w) => ({ as: 'member', params: { orgId: w.org.id } }),
      },
    },
  },
  createWebhookEndpoint: {
    summary: 'Created; the signing secret is shown this once',
    call: (w) => ({
      params: { orgId: w.org.id },
      body: {
        url: 'https://hooks.acme.example/bridge',
        eventTypes: EVENTS,
        description: 'Alerts for the ops channel',
      },
    }),
    errors: {
      ValidationError: {
        summary: 'Not an http(s) URL, and an unknown event type',
        call: (w) => ({
          params: { orgId: w.org.id },
          body: { url: 'ftp://hooks.acme.example', eventTypes: ['member.eaten'] },
        }),
      },
      NotFound: {
        summary: 'The caller is not a member of the organization',
        call: (w) => ({
          as: 'outsider',
          params: { orgId: w.org.id },
          body: { url: 'https://hooks.acme.example/bridge', eventTypes: EVENTS },
        }),
      },
      Forbidden: {
        summary: 'A MEMBER cannot add webhook endpoints',
        call: (w) => ({
          as: 'member',
          params: { orgId: w.org.id },
          body: { url: 'https://hooks.acme.example/bridge', eventTypes: EVENTS },
        }),
      },
    },
  },
  getWebhookEndpoint: {
    call: async (w) => ({ params: { orgId: w.org.id, id: await newEndpoint(w) } }),
    errors: { NotFound: unknown, Forbidden: memberRefused('see webhook endpoints') },
  },
  updateWebhookEndpoint: {
    summary: 'Subscribed to sync results only',
    call: async (w) => ({
      params: { orgId: w.org.id, id: await newEndpoint(w) },
      body: { eventTypes: ['data_source.sync_succeeded', 'data_source.sync_failed'] },
    }),
    errors: {
      ValidationError: {
        summary: 'No event type',
        call: (w) => ({ params: { orgId: w.org.id, id: NO_SUCH }, body: { eventTypes: [] } }),
      },
      NotFound: {
        ...unknown,
        call: (w) => ({ params: { orgId: w.org.id, id: NO_SUCH }, body: { enabled: true } }),
      },
      Forbidden: {
        summary: 'A MEMBER cannot change webhook endpoints',
        call: async (w) => ({
          as: 'member',
          params: { orgId: w.org.id, id: await newEndpoint(w) },
          body: { enabled: false },
        }),
      },
    },
  },
  deleteWebhookEndpoint: {
    summary: 'Deleted with its pending deliveries; the answer is the endpoint as it was',
    call: async (w) => ({ params: { orgId: w.org.id, id: await newEndpoint(w) } }),
    errors: { NotFound: unknown, Forbidden: memberRefused('delete webhook endpoints') },
  },
  rotateWebhookSecret: {
    summary: 'A new secret, shown this once; the old one signs beside it for 24 hours',
    call: async (w) => ({ params: { orgId: w.org.id, id: await newEndpoint(w) } }),
    errors: { NotFound: unknown, Forbidden: memberRefused('rotate a signing secret') },
  },
  testWebhookEndpoint: {
    summary: 'A `webhook.test` event is queued for the endpoint',
    call: async (w) => ({ params: { orgId: w.org.id, id: await newEndpoint(w) } }),
    errors: { NotFound: unknown, Forbidden: memberRefused('send test events') },
  },
  listWebhookDeliveries: {
    call: async (w) => {
      const id = await newEndpoint(w);
      await w.send('testWebhookEndpoint', { params: { orgId: w.org.id, id } });
      return { params: { orgId: w.org.id, id } };
    },
    errors: {
      ValidationError: {
        summary: '`limit` is not a number',
        call: (w) => ({ params: { orgId: w.org.id, id: NO_SUCH }, query: { limit: 'ten' } }),
      },
      NotFound: unknown,
      Forbidden: memberRefused('read the delivery log'),
    },
  },
};
