import type { ExampleRequest } from './examples';
import type { RouteDef } from './routes';

/** An OpenAPI `x-codeSamples` entry. */
export interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

/** Where the samples send requests: the bridge `npm start` runs. */
export const SAMPLE_BASE_URL = 'http://localhost:4000';

// Credentials are never written into a sample: each is a shell variable the reader sets.
const JWT = /^eyJ[\w-]*\.[\w-]*\.[\w-]*$/;
// A full-embed handoff code (the `#code=` of the sign-in redirect).
const HANDOFF_CODE = /^[\w-]{43}$/;
const placeholder = (value: string, name: string) =>
  name === 'code' && HANDOFF_CODE.test(value)
    ? '$BRIDGEKIT_HANDOFF_CODE'
    : JWT.test(value)
      ? name === 'sessionToken'
        ? '$BRIDGEKIT_SESSION_TOKEN'
        : '$BRIDGEKIT_SSO_TOKEN'
      : value;

const withPlaceholders = (value: unknown, name = ''): unknown => {
  if (typeof value === 'string') return placeholder(value, name);
  if (Array.isArray(value)) return value.map((item) => withPlaceholders(item));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, withPlaceholders(item, key)]),
    );
  }
  return value;
};

/** The route's path with the example's parameters filled in, and its query string. */
export function exampleUrl(route: RouteDef, request: ExampleRequest): string {
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(request.params?.[name] ?? `{${name}}`),
  );
  const query = Object.entries(request.query ?? {})
    .map(([name, value]) => {
      const shown = placeholder(value, name);
      const encoded = shown === value ? encodeURIComponent(value) : shown;
      return `${encodeURIComponent(name)}=${encoded}`;
    })
    .join('&');
  return `${SAMPLE_BASE_URL}${path}${query ? `?${query}` : ''}`;
}

const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
const shellHeader = (text: string) => (text.includes('$') ? `"${text}"` : shellQuote(text));

/**
 * The shell variable a bearer route's sample sends as its credential: the session token for a
 * session-only route, else the API key (a route that takes either shows the key).
 */
export function credentialVariable(route: RouteDef): string | undefined {
  if (route.auth !== 'bearer') return undefined;
  return route.credential === 'session' ? '$BRIDGEKIT_SESSION_TOKEN' : '$BRIDGEKIT_API_KEY';
}

/** A curl command for the example request; API keys and tokens are shell variables. */
export function curlSample(route: RouteDef, request: ExampleRequest): CodeSample {
  const lines = [`curl${route.method === 'get' ? '' : ` -X ${route.method.toUpperCase()}`}`];
  if (route.status >= 300 && route.status < 400) lines[0] += ' -i';
  lines[0] += ` "${exampleUrl(route, request)}"`;
  const credential = credentialVariable(route);
  if (credential) lines.push(`-H "Authorization: Bearer ${credential}"`);
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    // The route's credential is the one Authorization header; a recorded one is its example value.
    if (name.toLowerCase() === 'authorization') continue;
    lines.push(`-H ${shellHeader(`${name}: ${placeholder(value, name)}`)}`);
  }
  if (request.body !== undefined) {
    lines.push(`-H 'Content-Type: application/json'`);
    const json = JSON.stringify(withPlaceholders(request.body), null, 2);
    // A variable in the body needs a here-document so the shell fills it in.
    lines.push(
      json.includes('$BRIDGEKIT_')
        ? `--data-binary @- <<JSON\n${json}\nJSON`
        : `-d ${shellQuote(json)}`,
    );
  }
  return { lang: 'Shell', label: 'curl', source: lines.join(' \\\n  ') };
}

interface SsoUser {
  email?: string;
  firstName?: string;
  lastName?: string;
  role?: string;
  orgId?: string;
}

/** The claims of the example's SSO token (its payload is an example too, never a real one). */
function ssoClaims(request: ExampleRequest): SsoUser {
  const jwt = request.body && (request.body as { jwt?: unknown }).jwt;
  const token = typeof jwt === 'string' ? jwt : request.query?.jwt;
  const payload = token?.split('.')[1];
  if (!payload) return {};
  try {
    return JSON.parse(new TextDecoder().decode(base64UrlBytes(payload))) as SsoUser;
  } catch {
    return {};
  }
}

function base64UrlBytes(text: string): Uint8Array {
  const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

const quote = (text: string) => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

const signToken = (orgId: string | undefined, user: string) =>
  `// The organization's jwtSecret stays on your server, never in a browser bundle.
const jwt = await createSsoToken({
  secret: process.env.BRIDGEKIT_ORG_SECRET,
  orgId: ${quote(orgId ?? 'org_…')},
  user: ${user},
});`;

const userLiteral = (claims: SsoUser) => {
  const keys = (['email', 'firstName', 'lastName', 'role'] as const).filter((key) => claims[key]);
  return `{ ${keys.map((key) => `${key}: ${quote(String(claims[key]))}`).join(', ')} }`;
};

/** What a host backend writes with `@bridgekit/node` for an SSO route. */
export function hostBackendSample(
  routeId: string,
  request: ExampleRequest,
): CodeSample | undefined {
  const claims = ssoClaims(request);
  if (routeId === 'ssoExchange') {
    const source = `import { createSsoToken, exchangeSsoToken } from '@bridgekit/node';

${signToken(claims.orgId, userLiteral(claims))}
const session = await exchangeSsoToken({ baseUrl: '${SAMPLE_BASE_URL}', jwt });
// Hand session.sessionToken (valid until session.expiresAt) to the page's BridgeProvider.`;
    return { lang: 'JavaScript', label: '@bridgekit/node', source };
  }
  if (routeId === 'ssoBrowser') {
    const source = `import { createSsoToken } from '@bridgekit/node';

// Your backend's route for the iframe: the bridge checks the token and the framing page,
// then redirects to the organization's embed page with a single-use sign-in code (no cookie).
app.get('/bridge/embed', requireLogin, async (req, res) => {
  ${signToken(claims.orgId, '{ email: req.user.email, firstName: req.user.firstName }').replaceAll('\n', '\n  ')}
  res.redirect(302, \`${SAMPLE_BASE_URL}/api/sso/jwt?jwt=\${encodeURIComponent(jwt)}\`);
});`;
    return { lang: 'JavaScript', label: '@bridgekit/node', source };
  }
  return undefined;
}

const sessionClient = `import { createClient } from '@bridgekit/client';

// These calls take the session token, never an API key: session.sessionToken from
// exchangeSsoToken (POST /api/sso/jwt), then each renewal's. BridgeProvider's client does this.
let sessionToken = session.sessionToken;
const bridge = createClient({
  baseUrl: '${SAMPLE_BASE_URL}',
  getSessionToken: () => sessionToken,
});`;

const sessionCalls: Record<string, string> = {
  ssoSession: `const { data } = await bridge.ssoSession();
// data.member.role is the member's role now; data.expiresAt is when this token stops working.`,
  ssoRefresh: `const { data } = await bridge.ssoRefresh();
// Send the new token from now on: valid until data.expiresAt, never past data.absoluteExpiresAt.
sessionToken = data.sessionToken;`,
  ssoLogout: `await bridge.ssoLogout();
// 204: the session has ended on every instance; its tokens are refused from now on.`,
};

/** What a host's backend or page holding a session token writes with `@bridgekit/client`. */
export function sessionClientSample(routeId: string): CodeSample | undefined {
  const call = sessionCalls[routeId];
  if (!call) return undefined;
  return { lang: 'JavaScript', label: '@bridgekit/client', source: `${sessionClient}\n\n${call}` };
}
