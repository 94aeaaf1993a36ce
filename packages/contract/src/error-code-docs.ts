import type { ErrorTitle } from './common';
import type { ErrorCode, FieldCode } from './error-codes';

/**
 * What each `error.code` means, under the title it is answered with: the one source of the
 * error-code table in docs/api-rules.md (`npm run docs:generate`). Not exported from the package:
 * only the docs read it. A new code fails the typecheck until it is described here.
 */
export const ERROR_CODE_DOCS: Readonly<Record<ErrorCode, readonly [ErrorTitle, string]>> = {
  validation_failed: [
    'ValidationError',
    'fields of the body, query or path were refused (see `fieldErrors`)',
  ],
  malformed_json: ['ValidationError', 'the body is not valid JSON'],
  invalid_body: ['ValidationError', 'the body is JSON but not an object'],
  body_unreadable: ['ValidationError', 'the body could not be read (a broken encoding or stream)'],
  malformed_request: ['ValidationError', 'the request itself could not be parsed (its URL, say)'],
  nul_character: ['ValidationError', 'a value holds a NUL character'],
  data_source_incomplete: [
    'ValidationError',
    'a data source lacks what its dialect or SSH needs (`host`, `username`, an SSH secret)',
  ],
  invalid_credentials: [
    'Unauthorized',
    'a missing, malformed, unknown, revoked or expired key or session token',
  ],
  sso_token_invalid: [
    'Unauthorized',
    'an SSO token refused: signature, claims, expiry, or a `jti` already used',
  ],
  session_ended: [
    'Unauthorized',
    "the full-embed page's session has ended (raised by the kit in the page; the bridge sends `invalid_credentials`)",
  ],
  embed_code_invalid: ['Unauthorized', 'an unknown or expired full-embed handoff code'],
  embed_code_used: [
    'Unauthorized',
    'a handoff code used a second time (the first use is ended too)',
  ],
  admin_required: ['Forbidden', 'the action needs the ADMIN role'],
  origin_not_allowed: [
    'Forbidden',
    "the browser's `Origin` is not among the organization's `embedAllowedOrigins`",
  ],
  session_required: ['Forbidden', 'the route takes a session token only'],
  api_key_required: [
    'Forbidden',
    'the route, or a host setting in the body (`slug`, `fullEmbedEnabled`, `embedAllowedOrigins`), takes an API key only',
  ],
  full_embed_disabled: ['Forbidden', 'the organization has `fullEmbedEnabled` off'],
  framing_not_allowed: [
    'Forbidden',
    'the full-embed sign-in came without an allowed framing page (`Origin` or `Referer`)',
  ],
  embed_header_required: ['Forbidden', '`POST /embed/session` without `X-Bridgekit-Embed: 1`'],
  embed_origin_mismatch: [
    'Forbidden',
    'the framing origin differs from the one that signed in (the code is burnt)',
  ],
  embed_origin_foreign: [
    'Forbidden',
    "a handoff code redeemed from another origin than the bridge's own embed page (the code is burnt)",
  ],
  embed_framing_required: [
    'Forbidden',
    'a handoff code redeemed outside a frame: no `framingOrigin` (the code is burnt)',
  ],
  forbidden: ['Forbidden', 'refused, with no more specific reason'],
  not_found: ['NotFound', 'a record that is absent or that the caller may not see'],
  route_not_found: ['NotFound', 'no route for this method and path'],
  organization_not_found: ['NotFound', 'no such organization, or the caller is not its member'],
  data_source_not_found: ['NotFound', 'no such data source in this organization'],
  member_not_found: ['NotFound', 'no such member in this organization'],
  webhook_endpoint_not_found: ['NotFound', 'no such webhook endpoint in this organization'],
  embed_page_not_found: ['NotFound', 'no embeddable organization with this slug'],
  embed_asset_not_found: ['NotFound', "no such file of the full-embed page's bundle"],
  embed_not_built: ['NotFound', 'the full-embed bundle was not built (`npm run build:embed`)'],
  slug_taken: ['Conflict', 'another organization has this slug'],
  slug_unavailable: ['Conflict', 'no free slug could be made from the name: give one'],
  already_member: ['Conflict', 'the user is already a member of the organization'],
  last_admin: ['Conflict', 'the last ADMIN can be neither demoted nor removed'],
  conflict: ['Conflict', 'a conflict with no more specific reason'],
  payload_too_large: ['PayloadTooLarge', 'the body is over `BRIDGE_BODY_LIMIT_BYTES`'],
  unsupported_media_type: ['UnsupportedMediaType', 'the body is not sent as UTF-8 JSON'],
  rate_limited: ['TooManyRequests', 'a rate limit was reached (`Retry-After` says when to retry)'],
  connections_busy: [
    'TooManyRequests',
    'every connection-attempt slot of the process is taken: retry after a second',
  ],
  internal_error: ['InternalError', 'an unexpected failure (quote `X-Request-Id`)'],
  store_unavailable: ['ServiceUnavailable', 'the store is down or did not answer in time'],
  store_full: ['ServiceUnavailable', 'the store is out of disk space: nothing was saved'],
  redis_unavailable: ['ServiceUnavailable', 'Redis is down or did not answer in time'],
  rate_limit_unavailable: [
    'ServiceUnavailable',
    'the rate-limit counters could not be reached: refused, never let through uncounted',
  ],
  service_unavailable: ['ServiceUnavailable', 'unavailable, with no more specific reason'],
  shutting_down: ['ServiceUnavailable', 'the instance is draining after `SIGTERM` (`/readyz`)'],
  verification_failed: [
    'VerificationFailed',
    'the connection details could not connect, for a reason with no code of its own',
  ],
  host_not_found: ['VerificationFailed', "the database host's name does not resolve"],
  host_unreachable: ['VerificationFailed', 'no route to the database host'],
  connection_refused: ['VerificationFailed', 'nothing listens on the database port'],
  connection_closed: ['VerificationFailed', 'the database server closed the connection'],
  connection_failed: [
    'VerificationFailed',
    'the connection failed for a reason the bridge does not know',
  ],
  timeout: ['VerificationFailed', "no answer within the verify's deadline"],
  address_not_allowed: [
    'VerificationFailed',
    'the host is a loopback or private address and private networks are off',
  ],
  auth_failed: ['VerificationFailed', 'the database refused the username or password'],
  password_required: ['VerificationFailed', 'the database asks for a password and none was given'],
  database_not_found: ['VerificationFailed', 'no such database, or no right to it'],
  server_refused: ['VerificationFailed', 'the database server refused with an error of its own'],
  ssl_unsupported: [
    'VerificationFailed',
    'the server does not offer TLS (set `sslEnabled: false` to connect without)',
  ],
  ssl_failed: ['VerificationFailed', 'the TLS handshake failed'],
  ssh_host_not_found: ['VerificationFailed', "the SSH host's name does not resolve"],
  ssh_host_unreachable: ['VerificationFailed', 'no route to the SSH host'],
  ssh_connection_refused: ['VerificationFailed', 'nothing listens on the SSH port'],
  ssh_connection_failed: ['VerificationFailed', 'the SSH connection failed'],
  ssh_handshake_failed: ['VerificationFailed', 'the SSH handshake failed'],
  ssh_auth_failed: ['VerificationFailed', 'the SSH server refused the username, password or key'],
  ssh_key_invalid: ['VerificationFailed', 'the SSH private key could not be read'],
  ssh_key_too_slow: [
    'VerificationFailed',
    'the encrypted SSH key asks for too many bcrypt-pbkdf rounds',
  ],
  ssh_passphrase_invalid: ['VerificationFailed', 'the passphrase does not open the SSH key'],
  ssh_forward_prohibited: ['VerificationFailed', 'the SSH server refuses port forwarding'],
  ssh_target_unreachable: [
    'VerificationFailed',
    'the SSH server could not reach the database host',
  ],
};

/** What each `error.fieldCodes` value says about its field. Verify's codes are described above. */
export const FIELD_CODE_DOCS: Readonly<
  Record<Exclude<FieldCode, keyof typeof ERROR_CODE_DOCS>, string>
> = {
  required: 'missing or empty',
  invalid_type: 'the wrong JSON type',
  not_integer: 'not a whole number',
  too_short: 'shorter than allowed',
  too_long: 'longer than allowed',
  out_of_range: 'a number outside its range',
  invalid_format: 'not in the expected format (an email, a URL, an id)',
  invalid_value: 'not one of the allowed values',
  unknown_field: 'a field the route does not take',
  ssh_secret_required: 'SSH is on without a password or a key',
  conflicting_unset: 'an `unset*` flag sent with a new value for the same secret',
  invalid_origin: 'not an origin `embedAllowedOrigins` accepts',
  onboarding_backwards: '`onboardingStatus` may only move forwards',
};
