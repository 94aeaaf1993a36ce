import type { ApiExamples } from '@bridgekit/contract';

// What differs between two runs of the same scenarios, and what stands in for it. Times need
// nothing here: the examples run on a frozen clock.
const ID = /\b(org|ds|mem|usr|key|whe|msg|whd)_[0-9A-Z]{26}\b/g;
const JWT = /\beyJ[\w-]+\.[\w-]+\.[\w-]+/g;
const NONCE = /(name="csp-nonce" content=")[^"]*"/g;
const LOOPBACK = /http:\/\/127\.0\.0\.1:\d+/g;
const HANDOFF_CODE = /^[A-Za-z0-9_-]{43}$/;
const HANDOFF_FRAGMENT = /#code=[A-Za-z0-9_-]{43}/g;
/** Stands in for a full-embed handoff code (43 base64url characters, as a real one). */
export const EXAMPLE_HANDOFF_CODE = 'example_handoff_code_not_a_real_one_0000000';

/** Where the examples say the bridge is: the address `npm start` listens on. */
export const EXAMPLE_ORIGIN = 'http://localhost:4000';
export const EXAMPLE_JWT_SECRET = 'example_jwt_secret_not_a_real_one_000000000';
/** Stands in for a webhook endpoint's signing secret (`whsec_` and 32 bytes, base64, as a real one). */
export const EXAMPLE_WEBHOOK_SECRET = 'whsec_ZXhhbXBsZS13ZWJob29rLXNlY3JldC1ub3QtcmVhbCE=';
const EXAMPLE_SIGNATURE = 'example-signature-not-valid';

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const decode = (segment: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));

/** Every string in `value`, depth first, including the JSON inside JWT payloads. */
function* strings(value: unknown): Generator<string> {
  if (typeof value === 'string') {
    yield value;
    for (const [jwt] of value.matchAll(JWT)) yield JSON.stringify(decode(jwt.split('.')[1]!));
  } else if (Array.isArray(value)) {
    for (const item of value) yield* strings(item);
  } else if (value && typeof value === 'object') {
    for (const item of Object.values(value)) yield* strings(item);
  }
}

/** Example ids, numbered per type in creation order (ids sort by creation), so order holds. */
function exampleIds(examples: ApiExamples): Map<string, string> {
  const seen = new Set<string>();
  for (const text of strings(examples)) for (const [id] of text.matchAll(ID)) seen.add(id);
  const counters = new Map<string, number>();
  const ids = new Map<string, string>();
  for (const id of [...seen].sort()) {
    const prefix = id.slice(0, id.indexOf('_'));
    const n = (counters.get(prefix) ?? 0) + 1;
    counters.set(prefix, n);
    ids.set(id, `${prefix}_01EXAMPLE${String(n).padStart(17, '0')}`);
  }
  return ids;
}

function rewriteText(text: string, ids: Map<string, string>): string {
  const plain = (s: string) =>
    s
      .replace(ID, (id) => ids.get(id) ?? id)
      .replace(LOOPBACK, EXAMPLE_ORIGIN)
      .replace(HANDOFF_FRAGMENT, `#code=${EXAMPLE_HANDOFF_CODE}`)
      .replace(NONCE, '$1EXAMPLE_NONCE"');
  // A token keeps its header and (rewritten) claims, so readers see what it carries.
  return plain(
    text.replace(JWT, (jwt) => {
      const [header, payload] = jwt.split('.') as [string, string];
      const claims = JSON.parse(plain(JSON.stringify(decode(payload))));
      if (typeof claims.jti === 'string') claims.jti = 'example-jti';
      if (typeof claims.sid === 'string') claims.sid = 'example-session-id';
      return `${header}.${base64url(claims)}.${EXAMPLE_SIGNATURE}`;
    }),
  );
}

function rewrite(value: unknown, ids: Map<string, string>, key = ''): unknown {
  if (typeof value === 'string') {
    if (key === 'code' && HANDOFF_CODE.test(value)) return EXAMPLE_HANDOFF_CODE;
    if (key === 'secret' && value.startsWith('whsec_')) return EXAMPLE_WEBHOOK_SECRET;
    return key === 'jwtSecret' ? EXAMPLE_JWT_SECRET : rewriteText(value, ids);
  }
  if (Array.isArray(value)) return value.map((item) => rewrite(item, ids));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([name, item]) => [name, rewrite(item, ids, name)]),
    );
  }
  return value;
}

/** The examples with stable ids, example secrets and tokens, and the documented address. */
export function normalizeExamples(examples: ApiExamples): ApiExamples {
  return rewrite(examples, exampleIds(examples)) as ApiExamples;
}

/** Real credentials left anywhere in `text` (none may be). */
export function leakedSecrets(text: string, secrets: string[]): string[] {
  const leaks = secrets.filter((secret) => secret.length >= 8 && text.includes(secret));
  for (const [key] of text.matchAll(/bk_key_[A-Za-z0-9]{32}/g)) leaks.push(key);
  for (const [secret] of text.matchAll(/whsec_[A-Za-z0-9+/=]+/g)) {
    if (secret !== EXAMPLE_WEBHOOK_SECRET) leaks.push(secret);
  }
  for (const [jwt] of text.matchAll(JWT)) {
    if (!jwt.endsWith(`.${EXAMPLE_SIGNATURE}`)) leaks.push(jwt);
  }
  return leaks;
}
