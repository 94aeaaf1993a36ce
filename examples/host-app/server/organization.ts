import { type BridgeClient, createClient } from '@bridgekit/client';
import type { Config } from './config.js';

/** The organization this app embeds, with the secret that signs its users' SSO tokens. */
export interface HostOrganization {
  id: string;
  name: string;
  jwtSecret: string;
}

async function findOrganization(
  bridge: BridgeClient,
  config: Config,
): Promise<HostOrganization | undefined> {
  let cursor: string | null = null;
  do {
    const query: { limit: string; include: 'jwtSecret'; cursor?: string } = {
      limit: '100',
      include: 'jwtSecret',
    };
    if (cursor) query.cursor = cursor;
    const page = await bridge.listOrganizations({ query });
    const found = page.data.find(
      (org) => org.name === config.orgName && org.embedAllowedOrigins.includes(config.publicOrigin),
    );
    if (found?.jwtSecret) return { id: found.id, name: found.name, jwtSecret: found.jwtSecret };
    cursor = page.pagination.nextCursor;
  } while (cursor);
  return undefined;
}

/**
 * Finds the organization named `config.orgName` that allows this app's origin, or creates it
 * (the API key's user becomes its ADMIN), and reads its `jwtSecret`. A real host stores the id
 * and secret when it creates an organization per customer; this keeps the example one command.
 */
export async function ensureOrganization(config: Config): Promise<HostOrganization> {
  const bridge = createClient({ baseUrl: config.bridgeUrl, apiKey: config.apiKey });
  const existing = await findOrganization(bridge, config);
  if (existing) return existing;
  const { data } = await bridge.createOrganization({
    query: { include: 'jwtSecret' },
    body: {
      name: config.orgName,
      embedAllowedOrigins: [config.publicOrigin],
      skipOnboarding: true,
    },
  });
  if (!data.jwtSecret) throw new Error('the bridge did not return the new organization secret');
  return { id: data.id, name: data.name, jwtSecret: data.jwtSecret };
}
