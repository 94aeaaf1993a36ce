import { createClient } from '@bridgekit/client';
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { organization, sessionInfo } from '../../../../test/support/fixtures';
import { BASE_URL, json } from '../../test/render-kit';
import { BridgeProvider } from './bridge-provider';
import { useBridgeSession } from './use-access';

afterEach(cleanup);

function SessionStatus() {
  const session = useBridgeSession();
  return (
    <output aria-label="Session">
      {session.status === 'ready' ? session.session.member.role : session.status}
    </output>
  );
}

/** A client whose session reads answer, in turn, what `answers` gives (then the last again). */
function clientAnswering(answers: (() => Response)[]) {
  let reads = 0;
  const fetch = async (url: string) => {
    if (!url.endsWith('/api/sso/session')) return json(500, {});
    const answer = answers[Math.min(reads, answers.length - 1)]!;
    reads += 1;
    return answer();
  };
  return { client: createClient({ baseUrl: BASE_URL, apiKey: 'k' }, fetch), reads: () => reads };
}

const mount = (client: ReturnType<typeof createClient>) =>
  render(
    <BridgeProvider client={client}>
      <SessionStatus />
    </BridgeProvider>,
  );

const status = () => screen.getByLabelText('Session').textContent;
const unreachable = () => {
  throw new TypeError('fetch failed');
};
const signedIn = () => json(200, { data: sessionInfo(organization(), 'MEMBER') });
const noSession = () =>
  json(403, {
    error: { title: 'Forbidden', code: 'session_required', detail: 'This needs a session token' },
  });

describe('the session read of a provider', () => {
  it('reads again on the next mount after a read that got no answer, and then knows the role', async () => {
    const { client, reads } = clientAnswering([unreachable, signedIn]);
    const first = mount(client);
    await waitFor(() => expect(status()).toBe('none'));
    first.unmount();

    mount(client);
    await waitFor(() => expect(status()).toBe('MEMBER'));
    expect(reads()).toBe(2);
  });

  it('reads again after a server error, but keeps an answer that says there is no session', async () => {
    const failing = clientAnswering([() => json(500, {}), signedIn]);
    mount(failing.client).unmount();
    await waitFor(() => expect(failing.reads()).toBe(1));
    mount(failing.client);
    await waitFor(() => expect(status()).toBe('MEMBER'));
    cleanup();

    const proxy = clientAnswering([noSession, signedIn]);
    const first = mount(proxy.client);
    await waitFor(() => expect(status()).toBe('none'));
    first.unmount();
    mount(proxy.client);
    expect(status()).toBe('none');
    expect(proxy.reads()).toBe(1);
  });
});
