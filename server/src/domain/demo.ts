import type { Deps } from '../deps';
import { createApiKeyForEmail } from './api-key-admin';
import { createOrganization } from './organizations';

export const DEMO_EMAIL = 'demo@bridgekit.dev';

/** On the very first start (no users yet): a demo user, organization and API key. */
export async function seedDemo(deps: Deps): Promise<{ key: string; orgId: string } | null> {
  const anyUser = await deps.store.db.selectFrom('users').select('id').limit(1).executeTakeFirst();
  if (anyUser) return null;
  const { key, userId } = await createApiKeyForEmail(
    deps.store.db,
    { email: DEMO_EMAIL, fullName: 'Demo Admin', name: 'demo' },
    deps.now(),
  );
  const org = await createOrganization(deps, userId, {
    name: 'Demo Organization',
    slug: 'demo',
    embedAllowedOrigins: ['http://localhost:5173', 'http://localhost:6006'],
  });
  return { key, orgId: org.id };
}
