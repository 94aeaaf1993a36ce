import type { TestBridge } from '../../../test/support/bridge';

type Requester = Pick<TestBridge, 'request'>;

/** A CORS preflight from `origin`, as a browser sends it before an authorized call. */
export const preflight = (bridge: Requester, path: string, origin: string) =>
  bridge.request('OPTIONS', path, {
    headers: {
      origin,
      'access-control-request-method': 'PATCH',
      'access-control-request-headers': 'authorization, content-type',
    },
  });

/** The `frame-ancestors` sources the embed page of `slug` is sent with. */
export async function frameAncestorsOf(bridge: Requester, slug: string): Promise<string> {
  const res = await bridge.request('GET', `/embed/orgs/${slug}`, {
    headers: { accept: 'text/html' },
  });
  const csp = res.headers.get('content-security-policy') ?? '';
  return /frame-ancestors ([^;]*)/.exec(csp)?.[1] ?? '';
}

/** The GET sign-in of full embed, framed by a page of `origin`: its status only. */
export async function fullEmbedStatus(bridge: Requester, jwt: string, origin: string) {
  const res = await bridge.request('GET', `/api/sso/jwt?jwt=${encodeURIComponent(jwt)}`, {
    headers: { referer: `${origin}/app` },
  });
  return res.status;
}
