import type { TestResponse } from './bridge';

/** What a test needs of a bridge to make an organization with a webhook endpoint in it. */
interface Requests {
  request(
    method: string,
    path: string,
    options: { key: string; body?: unknown },
  ): Promise<TestResponse>;
}

/**
 * A new organization named `name` of the key's user, with one webhook endpoint receiving
 * `eventTypes` at `url`: the organization, the endpoints' path in it, and the endpoint as created
 * (its `secret` included).
 */
export async function orgWithEndpoint(
  bridge: Requests,
  key: string,
  name: string,
  endpoint: { url: string; eventTypes: string[] },
) {
  const org = (await bridge.request('POST', '/api/public/organizations', { key, body: { name } }))
    .body.data;
  const base = `/api/public/organizations/${org.id}/webhook-endpoints`;
  const created = (await bridge.request('POST', base, { key, body: endpoint })).body.data;
  return { org, base, endpoint: created };
}
