import type { ErrorTitle } from './common';
import { type ErrorCode, VERIFY_CODES } from './error-codes';
import type { RouteId } from './routes';

type VerifyCode = (typeof VERIFY_CODES)[number];

/** The title, and so the status, of every `error.code`. */
export const TITLE_OF_CODE: Record<ErrorCode, ErrorTitle> = {
  validation_failed: 'ValidationError',
  malformed_json: 'ValidationError',
  invalid_body: 'ValidationError',
  body_unreadable: 'ValidationError',
  malformed_request: 'ValidationError',
  nul_character: 'ValidationError',
  data_source_incomplete: 'ValidationError',
  unknown_parameter: 'ValidationError',
  unexpected_body: 'ValidationError',
  invalid_cursor: 'ValidationError',
  invalid_credentials: 'Unauthorized',
  sso_token_invalid: 'Unauthorized',
  sso_token_lifetime_too_long: 'Unauthorized',
  session_ended: 'Unauthorized',
  embed_code_invalid: 'Unauthorized',
  embed_code_used: 'Unauthorized',
  admin_required: 'Forbidden',
  origin_not_allowed: 'Forbidden',
  session_required: 'Forbidden',
  api_key_required: 'Forbidden',
  full_embed_disabled: 'Forbidden',
  framing_not_allowed: 'Forbidden',
  embed_header_required: 'Forbidden',
  embed_origin_foreign: 'Forbidden',
  embed_framing_required: 'Forbidden',
  embed_origin_mismatch: 'Forbidden',
  forbidden: 'Forbidden',
  not_found: 'NotFound',
  route_not_found: 'NotFound',
  organization_not_found: 'NotFound',
  data_source_not_found: 'NotFound',
  member_not_found: 'NotFound',
  webhook_endpoint_not_found: 'NotFound',
  embed_page_not_found: 'NotFound',
  embed_asset_not_found: 'NotFound',
  embed_not_built: 'NotFound',
  slug_taken: 'Conflict',
  slug_unavailable: 'Conflict',
  already_member: 'Conflict',
  last_admin: 'Conflict',
  conflict: 'Conflict',
  payload_too_large: 'PayloadTooLarge',
  unsupported_media_type: 'UnsupportedMediaType',
  rate_limited: 'TooManyRequests',
  connections_busy: 'TooManyRequests',
  internal_error: 'InternalError',
  store_unavailable: 'ServiceUnavailable',
  store_full: 'ServiceUnavailable',
  redis_unavailable: 'ServiceUnavailable',
  rate_limit_unavailable: 'ServiceUnavailable',
  service_unavailable: 'ServiceUnavailable',
  shutting_down: 'ServiceUnavailable',
  verification_failed: 'VerificationFailed',
  ...(Object.fromEntries(VERIFY_CODES.map((code) => [code, 'VerificationFailed'])) as Record<
    VerifyCode,
    'VerificationFailed'
  >),
};

// Feature groups: what a kind of route can answer, whatever the route.

/** Any route: stray input (http/stray-input.ts), a malformed path, a bug. */
const ANY: ErrorCode[] = [
  'unknown_parameter',
  'unexpected_body',
  'malformed_request',
  'internal_error',
];
/** A route that reads or writes the store: down, too slow (`store_unavailable`) or full. */
const STORE: ErrorCode[] = ['store_unavailable', 'store_full'];
/** A bearer route: the credential, the browser origin, the rate limit and its counters. */
const BEARER: ErrorCode[] = [
  ...ANY,
  ...STORE,
  'invalid_credentials',
  'origin_not_allowed',
  'rate_limited',
  'rate_limit_unavailable',
];
/** A bearer route that takes an API key only. */
const API_KEY: ErrorCode[] = [...BEARER, 'api_key_required'];
/** A bearer route that takes a session token only. */
const SESSION: ErrorCode[] = [...BEARER, 'session_required'];
/** Under `/organizations/{orgId}`: absent or not visible to the caller (or a NUL in a path id). */
const IN_ORG: ErrorCode[] = ['organization_not_found', 'not_found'];
/** A route that validates a query string. */
const QUERY: ErrorCode[] = ['validation_failed'];
/** A list: its query, and a cursor no page handed out. */
const LIST: ErrorCode[] = [...QUERY, 'invalid_cursor'];
/** A route that reads a JSON body. */
const BODY: ErrorCode[] = [
  'validation_failed',
  'malformed_json',
  'invalid_body',
  'body_unreadable',
  'nul_character',
  'payload_too_large',
  'unsupported_media_type',
];
const ADMIN: ErrorCode[] = ['admin_required'];
const MEMBER: ErrorCode[] = ['member_not_found'];
const DATA_SOURCE: ErrorCode[] = ['data_source_not_found'];
/** A webhook endpoint's routes: API key and ADMIN only. */
const WEBHOOKS: ErrorCode[] = [...API_KEY, ...IN_ORG, 'admin_required'];
const ENDPOINT: ErrorCode[] = [...WEBHOOKS, 'webhook_endpoint_not_found'];
/** A route that connects to a data source now (verify, health check). */
const CONNECTS: ErrorCode[] = ['connections_busy'];
const SLUG: ErrorCode[] = ['slug_taken', 'slug_unavailable'];
/** A host-signed SSO token checked (and its `jti` recorded, in Redis when configured). */
const SSO_TOKEN: ErrorCode[] = [
  ...STORE,
  'sso_token_invalid',
  'sso_token_lifetime_too_long',
  'rate_limited',
  'rate_limit_unavailable',
  'redis_unavailable',
];
/** A health or readiness probe: names the dependency that failed. */
const PROBE: ErrorCode[] = [...ANY, ...STORE, 'redis_unavailable'];

/**
 * Every `error.code` each operation can answer (its statuses follow from the codes' titles).
 * The OpenAPI document declares exactly these, per operation; the Prism test
 * (server/test/openapi/prism.test.ts) fails on any answer outside them, and so does every server test
 * that sends requests through the test bridge (test/support/declared-errors.ts). A new route adds its entry,
 * composed from the groups above.
 */
export const ROUTE_ERRORS: Record<RouteId, readonly ErrorCode[]> = {
  listOrganizations: [...BEARER, ...LIST],
  createOrganization: [...API_KEY, ...QUERY, ...BODY, ...SLUG],
  getOrganization: [...BEARER, ...IN_ORG, ...QUERY],
  // A session may not change the host-level settings (slug, full embed, origins).
  updateOrganization: [
    ...BEARER,
    ...IN_ORG,
    ...QUERY,
    ...BODY,
    ...ADMIN,
    ...SLUG,
    'api_key_required',
  ],
  deleteOrganization: [...API_KEY, ...IN_ORG, ...ADMIN],
  rotateJwtSecret: [...API_KEY, ...IN_ORG, ...BODY, ...ADMIN],
  listMembers: [...BEARER, ...IN_ORG, ...LIST],
  addMember: [...BEARER, ...IN_ORG, ...BODY, ...ADMIN, 'already_member'],
  getMember: [...BEARER, ...IN_ORG, ...MEMBER],
  updateMember: [...BEARER, ...IN_ORG, ...MEMBER, ...BODY, ...ADMIN, 'last_admin'],
  removeMember: [...BEARER, ...IN_ORG, ...MEMBER, ...ADMIN, 'last_admin'],
  listDataSources: [...BEARER, ...IN_ORG, ...LIST],
  createDataSource: [...BEARER, ...IN_ORG, ...BODY, ...ADMIN],
  verifyDataSource: [
    ...BEARER,
    ...IN_ORG,
    ...BODY,
    ...ADMIN,
    ...CONNECTS,
    'verification_failed',
    ...VERIFY_CODES,
  ],
  getDataSource: [...BEARER, ...IN_ORG, ...DATA_SOURCE],
  updateDataSource: [
    ...BEARER,
    ...IN_ORG,
    ...DATA_SOURCE,
    ...BODY,
    ...ADMIN,
    'data_source_incomplete',
  ],
  deleteDataSource: [...BEARER, ...IN_ORG, ...DATA_SOURCE, ...ADMIN],
  checkDataSourceHealth: [...BEARER, ...IN_ORG, ...DATA_SOURCE, ...ADMIN, ...CONNECTS],
  syncDataSource: [...BEARER, ...IN_ORG, ...DATA_SOURCE, ...ADMIN],
  getDataSourceSchema: [...BEARER, ...IN_ORG, ...DATA_SOURCE, ...LIST],
  listWebhookEndpoints: [...WEBHOOKS, ...LIST],
  createWebhookEndpoint: [...WEBHOOKS, ...BODY],
  getWebhookEndpoint: [...ENDPOINT],
  updateWebhookEndpoint: [...ENDPOINT, ...BODY],
  deleteWebhookEndpoint: [...ENDPOINT],
  rotateWebhookSecret: [...ENDPOINT],
  testWebhookEndpoint: [...ENDPOINT],
  listWebhookDeliveries: [...ENDPOINT, ...LIST],
  ssoExchange: [...ANY, ...SSO_TOKEN, ...BODY, 'origin_not_allowed'],
  // Takes any query parameter (the SDKs' browser options): no stray-input refusal.
  ssoBrowser: [
    'malformed_request',
    'internal_error',
    ...SSO_TOKEN,
    ...QUERY,
    'full_embed_disabled',
    'framing_not_allowed',
  ],
  ssoSession: [...SESSION],
  ssoRefresh: [...SESSION],
  ssoLogout: [...SESSION],
  // The page's own 404 is an HTML page; anything else answers JSON.
  embedPage: ['internal_error', 'embed_page_not_found', ...STORE],
  embedSession: [
    ...ANY,
    ...STORE,
    ...BODY,
    'embed_code_invalid',
    'embed_code_used',
    'embed_header_required',
    'embed_origin_foreign',
    'embed_framing_required',
    'embed_origin_mismatch',
  ],
  embedAsset: ['internal_error', 'embed_asset_not_found', 'embed_not_built'],
  openApi: [...ANY],
  docs: [...ANY],
  docsAsset: [...ANY, 'not_found'],
  health: [...PROBE],
  live: [...ANY],
  ready: [...PROBE, 'shutting_down'],
};

/** The codes an operation can answer, each once, in table order. */
export const errorCodesOf = (id: RouteId): ErrorCode[] => [...new Set(ROUTE_ERRORS[id])];

/** The codes an operation can answer, by status. */
export function errorCodesByStatus(
  id: RouteId,
  statusOf: Record<ErrorTitle, number>,
): Map<number, { titles: ErrorTitle[]; codes: ErrorCode[] }> {
  const out = new Map<number, { titles: ErrorTitle[]; codes: ErrorCode[] }>();
  for (const code of errorCodesOf(id)) {
    const title = TITLE_OF_CODE[code];
    const status = statusOf[title];
    const entry = out.get(status) ?? { titles: [], codes: [] };
    if (!entry.titles.includes(title)) entry.titles.push(title);
    entry.codes.push(code);
    out.set(status, entry);
  }
  return new Map([...out].sort(([a], [b]) => a - b));
}
