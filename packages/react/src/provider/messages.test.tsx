import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { BridgeProvider, useBridge } from './bridge-provider';
import {
  defaultMessages,
  formMessages,
  type ProviderMessages,
  providerMessages,
  withFormMessages,
} from './messages';

afterEach(cleanup);

const session = async () => 'bk_sess_test';

let seen: ProviderMessages | undefined;
function Probe() {
  seen = useBridge().messages;
  return null;
}

/** What `useBridge().messages` holds under a provider given `messages`. */
function providerValue(messages?: Parameters<typeof providerMessages>[0]): ProviderMessages {
  seen = undefined;
  render(
    <BridgeProvider
      baseUrl="https://bridge.example.com"
      getSessionToken={session}
      messages={messages}
    >
      <Probe />
    </BridgeProvider>,
  );
  if (!seen) throw new Error('the probe did not render');
  return seen;
}

describe('useBridge().messages', () => {
  it('holds every core string, and the form strings only where the provider overrides them', () => {
    const messages = providerValue({ dialect: 'Engine', retry: 'Encore' });
    expect(messages.retry).toBe('Encore');
    expect(messages.close).toBe(defaultMessages.close);
    expect(messages.dialect).toBe('Engine');
    // Not overridden: absent here (DataSourceForm fills them in for its own parts).
    expect(messages.connectionString).toBeUndefined();
    expect(Object.keys(formMessages).filter((k) => k in messages)).toEqual(['dialect']);
  });

  it('is typed as it is: core strings always, form strings possibly undefined', () => {
    const messages = providerValue();
    expectTypeOf(messages.retry).toEqualTypeOf<string>();
    expectTypeOf(messages.dialect).toEqualTypeOf<string | undefined>();
    expect(messages.dialect).toBeUndefined();
  });

  it('gets the form defaults back under the overrides with withFormMessages', () => {
    const full = withFormMessages(providerMessages({ dialect: 'Engine' }));
    expectTypeOf(full.connectionString).toEqualTypeOf<string>();
    expect(full).toEqual({ ...providerMessages(), ...formMessages, dialect: 'Engine' });
  });

  it('keeps each component’s own group out of the core set, so MemberCard does not carry them', () => {
    const messages = providerValue({ membersTitle: 'Membres' });
    expect(messages.membersTitle).toBe('Membres');
    for (const key of ['orgPickerTitle', 'addMember', 'rotateSecret', 'checkNow', 'schemaSearch']) {
      expect(key in messages, key).toBe(false);
      expect(key in defaultMessages, key).toBe(true);
    }
  });
});
