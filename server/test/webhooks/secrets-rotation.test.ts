import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startBridge, type TestBridge } from '../../../test/support/bridge';
import { orgWithEndpoint } from '../../../test/support/webhook-endpoint';
import { rotateSecrets } from '../../src/domain/rotate-secrets';
import { createSecretBox } from '../../src/domain/secret-box';
import { signingSecrets } from '../../src/webhooks/endpoints';
import { findEndpointById } from '../../src/webhooks/store';

// SQLite and PostgreSQL, less what BRIDGEKIT_ENGINES leaves out.
const ON = (['sqlite', 'postgres'] as const).filter((engine) => ENGINES.includes(engine));

describe.each(ON)('webhook secrets and the key rotation on %s', (engine) => {
  const oldKey = randomBytes(32);
  let bridge: TestBridge;

  beforeAll(async () => {
    bridge = await startBridge(engine, { BRIDGE_SECRET_KEY: oldKey.toString('base64') });
  });
  afterAll(() => bridge.stop());

  it('re-seals current and previous signing secrets under the new key; the old key is then not needed', async () => {
    const { key } = await bridge.newUser();
    const { base, endpoint: created } = await orgWithEndpoint(bridge, key, 'Keys', {
      url: 'https://hooks.example.com/k',
      eventTypes: ['member.added'],
    });
    const rotated = (await bridge.request('POST', `${base}/${created.id}/secret`, { key })).body
      .data;

    const newKey = randomBytes(32);
    const rotating = { ...bridge.deps, secretBox: createSecretBox(newKey, oldKey) };
    const counts = await rotateSecrets(rotating);
    expect(counts.webhookEndpoints).toBe(1);
    expect((await rotateSecrets(rotating)).webhookEndpoints).toBe(0);

    const newOnly = { ...bridge.deps, secretBox: createSecretBox(newKey) };
    const row = await findEndpointById(bridge.deps.store.db, created.id);
    expect(signingSecrets(newOnly, row!)).toEqual([rotated.secret, created.secret]);
    expect(() => signingSecrets(bridge.deps, row!)).toThrow('cannot decrypt');
  });
});
