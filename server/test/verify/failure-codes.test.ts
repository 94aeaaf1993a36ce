import { ErrorBody, VERIFY_CODES } from '@bridgekit/contract';
import { describe, expect, it } from 'vitest';
import { codesOf, verificationFailed } from '../../src/verify/failure-codes';
import { timeoutFailure, transportFailure } from '../../src/verify/failures';
import { sshFailure } from '../../src/verify/ssh-failures';

const failure = (reason: string, fields: string[]) => ({
  reason,
  fieldErrors: Object.fromEntries(fields.map((field) => [field, 'English text'])),
});

describe('verify failure codes', () => {
  it.each([
    ['ENOTFOUND', ['host'], 'host_not_found'],
    ['EAI_AGAIN', ['host'], 'host_not_found'],
    ['EHOSTUNREACH', ['host'], 'host_unreachable'],
    ['ECONNREFUSED', ['port'], 'connection_refused'],
    ['ECONNRESET', ['host'], 'connection_closed'],
    ['connection-closed', ['host'], 'connection_closed'],
    ['timeout', ['host'], 'timeout'],
    ['policy', ['sshHost'], 'address_not_allowed'],
    ['28P01', ['username', 'password'], 'auth_failed'],
    ['28000', ['username', 'password'], 'auth_failed'],
    ['3D000', ['databaseName'], 'database_not_found'],
    ['ssl-unsupported', ['sslEnabled'], 'ssl_unsupported'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', ['sslEnabled'], 'ssl_failed'],
    ['EPROTO', ['sslEnabled'], 'ssl_failed'],
    ['53300', ['host'], 'server_refused'],
    ['too-much-data', ['host'], 'connection_failed'],
    ['ssh-ENOTFOUND', ['sshHost'], 'ssh_host_not_found'],
    ['ssh-ENETUNREACH', ['sshHost'], 'ssh_host_unreachable'],
    ['ssh-ECONNREFUSED', ['sshPort'], 'ssh_connection_refused'],
    ['ssh-EPIPE', ['sshHost'], 'ssh_connection_failed'],
    ['ssh-socket', ['sshHost'], 'ssh_connection_failed'],
    ['ssh-handshake', ['sshHost'], 'ssh_handshake_failed'],
    ['ssh-closed', ['sshHost'], 'ssh_handshake_failed'],
    ['ssh-auth', ['sshUsername', 'sshPassword'], 'ssh_auth_failed'],
    ['ssh-key', ['sshPrivateKey'], 'ssh_key_invalid'],
    ['ssh-passphrase', ['sshPrivateKeyPassphrase'], 'ssh_passphrase_invalid'],
    ['ssh-forward-prohibited', ['host'], 'ssh_forward_prohibited'],
    ['ssh-forward-failed', ['host'], 'ssh_target_unreachable'],
  ])('%s → %s on every blamed field: %s', (reason, fields, code) => {
    const codes = codesOf(failure(reason, fields));
    expect(codes.code).toBe(code);
    expect(Object.values(codes.fields).map((f) => f.code)).toEqual(fields.map(() => code));
  });

  it('gives a reason no row knows the generic connection_failed', () => {
    expect(codesOf(failure('unknown:TypeError', ['host'])).code).toBe('connection_failed');
    expect(codesOf(failure('something-new', ['host'])).code).toBe('connection_failed');
  });

  it('codes a missing password per field: password_required, and auth_failed on the username', () => {
    const codes = codesOf(failure('no-password', ['username', 'password']));
    expect(codes.code).toBe('password_required');
    expect(codes.fields).toEqual({
      username: { code: 'auth_failed', message: 'English text' },
      password: { code: 'password_required', message: 'English text' },
    });
  });

  it('codes a key too slow to decrypt ssh_key_too_slow on sshPrivateKey', () => {
    const codes = codesOf(timeoutFailure('ssh-key', true, undefined));
    expect(codes.code).toBe('timeout');
    expect(codes.fields.sshPrivateKey?.code).toBe('ssh_key_too_slow');
  });

  it('reaches every verify code of the contract', () => {
    const reasons = [
      'ENOTFOUND',
      'EHOSTUNREACH',
      'ECONNREFUSED',
      'EPIPE',
      'timeout',
      'policy',
      '28P01',
      'no-password',
      '3D000',
      'ssl-unsupported',
      'EPROTO',
      'mysql-auth-needs-verified-tls',
      'mysql-auth-cleartext',
      'postgres-auth-needs-verified-tls',
      '08004',
      'ssh-EAI_FAIL',
      'ssh-EHOSTDOWN',
      'ssh-ECONNREFUSED',
      'ssh-socket',
      'ssh-handshake',
      'ssh-auth',
      'ssh-key',
      'ssh-key-unsupported',
      'ssh-passphrase',
      'ssh-forward-prohibited',
      'ssh-forward-failed',
      'unknown:X',
    ];
    const reached = new Set(reasons.map((reason) => codesOf(failure(reason, [])).code));
    reached.add('ssh_key_too_slow');
    expect([...reached].sort()).toEqual([...VERIFY_CODES].sort());
  });

  it('makes the 422 body: code, fieldCodes beside fieldErrors, and the params the detail names', () => {
    const refused = transportFailure(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), {
      port: 6543,
      viaSsh: false,
      serviceIp: undefined,
      product: 'PostgreSQL',
    });
    if (!refused) throw new Error('ECONNREFUSED is a transport failure');
    const body = ErrorBody.parse(verificationFailed(refused).toBody());
    expect(body.error).toEqual({
      title: 'VerificationFailed',
      code: 'connection_refused',
      detail: 'The connection was refused on port 6543.',
      fieldErrors: { port: 'The connection was refused on this port.' },
      fieldCodes: { port: 'connection_refused' },
      params: { port: 6543 },
    });
  });

  it('names the service address in params only when the detail names it', () => {
    const direct = verificationFailed(timeoutFailure('database', false, '203.0.113.7'));
    expect(direct.params).toEqual({ serviceIp: '203.0.113.7' });
    const tunnelled = verificationFailed(timeoutFailure('database', true, '203.0.113.7'));
    expect(tunnelled.params).toBeUndefined();
    const ssh = sshFailure(Object.assign(new Error('x'), { code: 'ENOTFOUND' }), {
      sshPort: 22,
      password: true,
      privateKey: false,
      serviceIp: '203.0.113.7',
    });
    expect(verificationFailed(ssh).toBody().error).toMatchObject({
      code: 'ssh_host_not_found',
      fieldCodes: { sshHost: 'ssh_host_not_found' },
    });
  });
});
