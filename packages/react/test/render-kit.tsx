import { createClient } from '@bridgekit/client';
import type { Role } from '@bridgekit/contract';
import { render, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactNode } from 'react';
import { expect, vi } from 'vitest';
import { organization, sessionInfo } from '../../../test/support/fixtures';
import { BridgeProvider, type BridgeProviderProps } from '../src/provider/bridge-provider';

export const BASE_URL = 'https://bridge.test';

/** A request the kit made, the session read left out. */
export interface Call {
  method: string;
  path: string;
  body: unknown;
}

export const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

export interface KitOptions {
  /** The role `GET /api/sso/session` reports for `orgId`; null: no session (403 session_required). */
  role?: Role | null;
  orgId?: string;
  provider?: Pick<BridgeProviderProps, 'messages' | 'theme' | 'unstyled'>;
}

/**
 * Renders `ui` in a provider whose client answers from `respond`; the session read is answered
 * from `options.role` (ADMIN by default) and counted apart from `calls`.
 */
export function renderKit(
  ui: ReactNode,
  respond: (call: Call) => Response | Promise<Response> = () => json(500, {}),
  options: KitOptions = {},
) {
  const { role = 'ADMIN', orgId = 'org_0000000001', provider } = options;
  const calls: Call[] = [];
  let sessionReads = 0;
  const fetch = vi.fn(async (url: string, init: RequestInit) => {
    const call = {
      method: init.method ?? 'GET',
      path: url.replace(BASE_URL, ''),
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
    };
    if (call.path === '/api/sso/session') {
      sessionReads += 1;
      if (role) return json(200, { data: sessionInfo(organization({ id: orgId }), role) });
      const detail = 'This needs a session token, not an API key';
      return json(403, { error: { title: 'Forbidden', code: 'session_required', detail } });
    }
    calls.push(call);
    return respond(call);
  });
  const client = createClient({ baseUrl: BASE_URL, apiKey: 'k' }, fetch);
  const view = render(
    <BridgeProvider client={client} {...provider}>
      {ui}
    </BridgeProvider>,
  );
  return { calls, sessionReads: () => sessionReads, user: userEvent.setup(), ...view };
}

/** Waits until nothing the kit rendered is loading any more. */
export const settled = () =>
  waitFor(() => expect(document.querySelector('[data-state="loading"]')).toBeNull());
