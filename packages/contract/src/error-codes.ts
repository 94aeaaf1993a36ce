import { z } from 'zod';

/**
 * Why a verify could not connect: `error.code` of a 422, and the code of each field it blames.
 * The bridge derives them from its verify failure reasons in one table.
 */
export const VERIFY_CODES = [
  'host_not_found',
  'host_unreachable',
  'connection_refused',
  'connection_closed',
  'connection_failed',
  'timeout',
  'address_not_allowed',
  'auth_failed',
  'password_required',
  'database_not_found',
  'server_refused',
  'ssl_unsupported',
  'ssl_failed',
  'mysql_auth_needs_verified_tls',
  'mysql_auth_cleartext_refused',
  'postgres_auth_needs_verified_tls',
  'ssh_host_not_found',
  'ssh_host_unreachable',
  'ssh_connection_refused',
  'ssh_connection_failed',
  'ssh_handshake_failed',
  'ssh_auth_failed',
  'ssh_key_invalid',
  'ssh_key_unsupported',
  'ssh_key_too_slow',
  'ssh_passphrase_invalid',
  'ssh_forward_prohibited',
  'ssh_target_unreachable',
] as const;

/**
 * Every `error.code`: a stable, machine-readable reason next to the English `detail`, for
 * translations and for code that branches on the failure. New codes may be added.
 */
export const ErrorCode = z.enum([
  // 400
  'validation_failed',
  'malformed_json',
  'invalid_body',
  'body_unreadable',
  'malformed_request',
  'nul_character',
  'data_source_incomplete',
  'unknown_parameter',
  'unexpected_body',
  'invalid_cursor',
  // 401
  'invalid_credentials',
  'sso_token_invalid',
  'sso_token_lifetime_too_long',
  'session_ended',
  'embed_code_invalid',
  'embed_code_used',
  // 403
  'admin_required',
  'origin_not_allowed',
  'session_required',
  'api_key_required',
  'full_embed_disabled',
  'framing_not_allowed',
  'embed_header_required',
  'embed_origin_mismatch',
  'embed_origin_foreign',
  'embed_framing_required',
  'forbidden',
  // 404
  'not_found',
  'route_not_found',
  'organization_not_found',
  'data_source_not_found',
  'member_not_found',
  'webhook_endpoint_not_found',
  'embed_page_not_found',
  'embed_asset_not_found',
  'embed_not_built',
  // 409
  'slug_taken',
  'slug_unavailable',
  'already_member',
  'last_admin',
  'conflict',
  // 413, 415, 429, 500, 503
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'connections_busy',
  'internal_error',
  'store_unavailable',
  'store_full',
  'redis_unavailable',
  'rate_limit_unavailable',
  'service_unavailable',
  'shutting_down',
  // 422
  'verification_failed',
  ...VERIFY_CODES,
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

/**
 * Every code in `error.fieldCodes`: why one field was refused. Validation codes come from the
 * schema check (`required`, `too_long`, `unknown_field` …); the rest name a rule of the bridge.
 */
export const FieldCode = z.enum([
  'required',
  'invalid_type',
  'not_integer',
  'too_short',
  'too_long',
  'out_of_range',
  'invalid_format',
  'invalid_value',
  'unknown_field',
  'unexpected_body',
  'nul_character',
  'ssh_secret_required',
  'conflicting_unset',
  'invalid_origin',
  'slug_taken',
  'slug_unavailable',
  'already_member',
  'last_admin',
  'onboarding_backwards',
  'api_key_required',
  ...VERIFY_CODES,
]);
export type FieldCode = z.infer<typeof FieldCode>;

/** Field name (dotted path for nested fields) to the code of its failure; same keys as `fieldErrors`. */
export const FieldCodes = z.record(z.string(), FieldCode);
export type FieldCodes = z.infer<typeof FieldCodes>;

/** Values the detail and field messages mention (a port, the service's address), for translations. */
export const ErrorParams = z.record(z.string(), z.union([z.string(), z.number()]));
export type ErrorParams = z.infer<typeof ErrorParams>;

/** The field code of one zod issue: `required` for a missing value, else by the issue's kind. */
export function fieldCodeOf(issue: z.core.$ZodIssue): FieldCode {
  // A missing field fails whatever its schema checks first (a type, an enum's values).
  if (issue.code !== 'custom' && 'input' in issue && issue.input === undefined) return 'required';
  switch (issue.code) {
    case 'invalid_type':
      return issue.expected === 'int' ? 'not_integer' : 'invalid_type';
    case 'too_small':
      if (issue.origin === 'string' || issue.origin === 'array')
        return Number(issue.minimum) <= 1 ? 'required' : 'too_short';
      return 'out_of_range';
    case 'too_big':
      return issue.origin === 'string' || issue.origin === 'array' ? 'too_long' : 'out_of_range';
    case 'invalid_format':
      return 'invalid_format';
    case 'unrecognized_keys':
      return 'unknown_field';
    case 'custom': {
      const code = FieldCode.safeParse(issue.params?.code);
      return code.success ? code.data : 'invalid_value';
    }
    default:
      return 'invalid_value';
  }
}
