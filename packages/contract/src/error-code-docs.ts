import type { ErrorCode, FieldCode } from './error-codes';

/**
 * What each `error.code` means (its title, and so its status, is TITLE_OF_CODE's): the one source of the
 * error-code table in docs/api-rules.md (`npm run docs:generate`). Not exported from the package:
 * only the docs read it. A new code fails the typecheck until it is described here.
 */
export const ERROR_CODE_DOCS: Readonly<Record<ErrorCode, string>> = {
  validation_failed: 'fields of the body, query or path were refused (see `fieldErrors`)',
  malformed_json: 'the body is not valid JSON',
  invalid_body: 'the body is JSON but not an object',
  body_unreadable: 'the body could not be read (a broken encoding or stream)',
  malformed_request: 'the request itself could not be parsed (its URL, say)',
  nul_character: 'a value holds a NUL character',
  unknown_parameter: 'a query parameter the operation does not declare (named in `fieldErrors`)',
  unexpected_body: 'a body sent to an operation that takes none (`fieldErrors.body`)',
  invalid_cursor: 'a `cursor` no page of that list could have handed out',
  data_source_incomplete:
    'a data source lacks what its dialect or SSH needs (`host`, `username`, an SSH secret)',
  invalid_credentials: 'a missing, malformed, unknown, revoked or expired key or session token',
  sso_token_invalid: 'an SSO token refused: signature, claims, expiry, or a `jti` already used',
  session_ended:
    "the full-embed page's session has ended (raised by the kit in the page; the bridge sends `invalid_credentials`)",
  embed_code_invalid: 'an unknown or expired full-embed handoff code',
  sso_token_lifetime_too_long:
    'an SSO token whose `exp - iat` is over the limit (`params.limit`, in seconds); said only for a valid signature',
  embed_code_used: 'a handoff code used a second time (the first use is ended too)',
  admin_required: 'the action needs the ADMIN role',
  origin_not_allowed:
    "the browser's `Origin` is not among the organization's `embedAllowedOrigins`",
  session_required: 'the route takes a session token only',
  api_key_required:
    'the route, or a host setting in the body (`slug`, `fullEmbedEnabled`, `embedAllowedOrigins`), takes an API key only',
  full_embed_disabled: 'the organization has `fullEmbedEnabled` off',
  framing_not_allowed:
    'the full-embed sign-in came without an allowed framing page (`Origin` or `Referer`)',
  embed_header_required: '`POST /embed/session` without `X-Bridgekit-Embed: 1`',
  embed_origin_mismatch:
    'the framing origin differs from the one that signed in (the code is burnt)',
  embed_origin_foreign:
    "a handoff code redeemed from another origin than the bridge's own embed page (the code is burnt)",
  embed_framing_required:
    'a handoff code redeemed outside a frame: no `framingOrigin` (the code is burnt)',
  forbidden: 'refused, with no more specific reason',
  not_found: 'a record that is absent or that the caller may not see',
  route_not_found: 'no route for this method and path',
  organization_not_found: 'no such organization, or the caller is not its member',
  data_source_not_found: 'no such data source in this organization',
  member_not_found: 'no such member in this organization',
  webhook_endpoint_not_found: 'no such webhook endpoint in this organization',
  embed_page_not_found: 'no embeddable organization with this slug',
  embed_asset_not_found: "no such file of the full-embed page's bundle",
  embed_not_built: 'the full-embed bundle was not built (`npm run build:embed`)',
  slug_taken: 'another organization has this slug',
  slug_unavailable: 'no free slug could be made from the name: give one',
  already_member: 'the user is already a member of the organization',
  last_admin: 'the last ADMIN can be neither demoted nor removed',
  conflict: 'a conflict with no more specific reason',
  payload_too_large: 'the body is over `BRIDGE_BODY_LIMIT_BYTES`',
  unsupported_media_type: 'the body is not sent as UTF-8 JSON',
  rate_limited: 'a rate limit was reached (`Retry-After` says when to retry)',
  connections_busy: 'every connection-attempt slot of the process is taken: retry after a second',
  internal_error: 'an unexpected failure (quote `X-Request-Id`)',
  store_unavailable: 'the store is down or did not answer in time',
  store_full: 'the store is out of disk space: nothing was saved',
  redis_unavailable: 'Redis is down or did not answer in time',
  rate_limit_unavailable:
    'the rate-limit counters could not be reached: refused, never let through uncounted',
  service_unavailable: 'unavailable, with no more specific reason',
  shutting_down: 'the instance is draining after `SIGTERM` (`/readyz`)',
  verification_failed:
    'the connection details could not connect, for a reason with no code of its own',
  host_not_found: "the database host's name does not resolve",
  host_unreachable: 'no route to the database host',
  connection_refused: 'nothing listens on the database port',
  connection_closed: 'the database server closed the connection',
  connection_failed: 'the connection failed for a reason the bridge does not know',
  timeout: "no answer within the verify's deadline",
  address_not_allowed: 'the host is a loopback or private address and private networks are off',
  auth_failed: 'the database refused the username or password',
  password_required: 'the database asks for a password and none was given',
  database_not_found: 'no such database, or no right to it',
  server_refused: 'the database server refused with an error of its own',
  ssl_unsupported: 'the server does not offer TLS (set `sslEnabled: false` to connect without)',
  ssl_failed: 'the TLS handshake failed',
  mysql_auth_needs_verified_tls:
    'MySQL asked for the password itself (`sha256_password`, `caching_sha2_password` full authentication) without TLS whose certificate verifies',
  mysql_auth_cleartext_refused:
    'MySQL asked for the password in clear text (`mysql_clear_password`), which is never sent',
  postgres_auth_needs_verified_tls:
    'PostgreSQL asked for the password in clear text (`password`) or as an MD5 hash (`md5`) without TLS whose certificate verifies',
  ssh_host_not_found: "the SSH host's name does not resolve",
  ssh_host_unreachable: 'no route to the SSH host',
  ssh_connection_refused: 'nothing listens on the SSH port',
  ssh_connection_failed: 'the SSH connection failed',
  ssh_handshake_failed: 'the SSH handshake failed',
  ssh_auth_failed: 'the SSH server refused the username, password or key',
  ssh_key_invalid:
    'the SSH private key could not be read, or its numbers are inconsistent (a 400 `ValidationError` when the key is received)',
  ssh_key_unsupported:
    'the SSH private key is of an unsupported type or size: Ed25519, ECDSA or RSA of 1024–8192 bits (a 400 `ValidationError` when the key is received)',
  ssh_key_too_slow:
    'the encrypted SSH key asks for too many bcrypt-pbkdf rounds (a 400 `ValidationError` when the key is received)',
  ssh_passphrase_invalid: 'the passphrase does not open the SSH key',
  ssh_forward_prohibited: 'the SSH server refuses port forwarding',
  ssh_target_unreachable: 'the SSH server could not reach the database host',
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
