import type { FieldCode, VERIFY_CODES } from '@bridgekit/contract';
import { ApiError, type FieldFailure } from '../api-error';
import type { VerifyFailure } from './verify';

type VerifyCode = (typeof VERIFY_CODES)[number];

interface Row {
  /** Matches the whole `reason` of a failure. */
  reason: RegExp;
  code: VerifyCode;
  /** Fields whose code differs from the failure's own. */
  fields?: Record<string, FieldCode>;
}

/**
 * Verify failure reasons (Node and ssh2 codes, SQLSTATEs, the bridge's own names) to the codes
 * a client sees. The first row that matches wins; a reason no row knows is `connection_failed`.
 * A new dialect's reasons get their codes here, and only here.
 */
const REASON_CODES: readonly Row[] = [
  { reason: /^(ENOTFOUND|EAI_[A-Z]+)$/, code: 'host_not_found' },
  { reason: /^(EHOSTUNREACH|ENETUNREACH|EHOSTDOWN|ENETDOWN)$/, code: 'host_unreachable' },
  { reason: /^ECONNREFUSED$/, code: 'connection_refused' },
  { reason: /^(ECONNRESET|EPIPE|connection-closed)$/, code: 'connection_closed' },
  { reason: /^timeout$/, code: 'timeout', fields: { sshPrivateKey: 'ssh_key_too_slow' } },
  { reason: /^policy$/, code: 'address_not_allowed' },
  { reason: /^(28P01|28000)$/, code: 'auth_failed' },
  { reason: /^no-password$/, code: 'password_required', fields: { username: 'auth_failed' } },
  { reason: /^3D000$/, code: 'database_not_found' },
  { reason: /^too-much-data$/, code: 'connection_failed' },
  { reason: /^ssl-unsupported$/, code: 'ssl_unsupported' },
  { reason: /^(EPROTO|ERR_SSL_\w+|ERR_TLS_\w+|ssl-handshake)$/, code: 'ssl_failed' },
  { reason: /^mysql-auth-needs-verified-tls$/, code: 'mysql_auth_needs_verified_tls' },
  { reason: /^mysql-auth-cleartext$/, code: 'mysql_auth_cleartext_refused' },
  { reason: /^postgres-auth-needs-verified-tls$/, code: 'postgres_auth_needs_verified_tls' },
  { reason: /^[0-9A-Z]{5}$/, code: 'server_refused' },
  { reason: /^ssh-(ENOTFOUND|EAI_[A-Z]+)$/, code: 'ssh_host_not_found' },
  { reason: /^ssh-(EHOSTUNREACH|ENETUNREACH|EHOSTDOWN|ENETDOWN)$/, code: 'ssh_host_unreachable' },
  { reason: /^ssh-ECONNREFUSED$/, code: 'ssh_connection_refused' },
  { reason: /^ssh-(handshake|closed)$/, code: 'ssh_handshake_failed' },
  { reason: /^ssh-auth$/, code: 'ssh_auth_failed' },
  { reason: /^ssh-key$/, code: 'ssh_key_invalid' },
  { reason: /^ssh-key-unsupported$/, code: 'ssh_key_unsupported' },
  { reason: /^ssh-key-rounds$/, code: 'ssh_key_too_slow' },
  { reason: /^ssh-passphrase$/, code: 'ssh_passphrase_invalid' },
  { reason: /^ssh-forward-prohibited$/, code: 'ssh_forward_prohibited' },
  { reason: /^ssh-forward-failed$/, code: 'ssh_target_unreachable' },
  { reason: /^ssh-/, code: 'ssh_connection_failed' },
];

/** The code of a verify failure, and of each field it blames. */
export function codesOf(failure: Pick<VerifyFailure, 'reason' | 'fieldErrors'>) {
  const row = REASON_CODES.find((r) => r.reason.test(failure.reason));
  const code: VerifyCode = row?.code ?? 'connection_failed';
  const fields: Record<string, FieldFailure> = {};
  for (const [field, message] of Object.entries(failure.fieldErrors)) {
    fields[field] = { code: row?.fields?.[field] ?? code, message };
  }
  return { code, fields };
}

/** The 422 for a failed verify: its detail, its code, and the blamed fields with theirs. */
export function verificationFailed(failure: VerifyFailure): ApiError {
  const { code, fields } = codesOf(failure);
  return new ApiError('VerificationFailed', failure.detail, {
    code,
    fields,
    ...(failure.params ? { params: failure.params } : {}),
  });
}
