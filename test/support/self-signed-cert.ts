import { execFile } from 'node:child_process';
import { isIP } from 'node:net';
import { promisify } from 'node:util';

/**
 * Writes a self-signed P-256 certificate for `names` (DNS names or IP addresses, the first as
 * its CN), valid one day, and its unencrypted key, with `openssl`: the one recipe every test
 * server with TLS uses (the HTTPS front of the e2e tests, the private PostgreSQL and MariaDB).
 */
export async function writeSelfSignedCert(
  files: { keyFile: string; certFile: string },
  names: readonly string[],
): Promise<void> {
  if (names.length === 0) throw new Error('writeSelfSignedCert: at least one name');
  const san = names.map((name) => (isIP(name) ? `IP:${name}` : `DNS:${name}`)).join(',');
  await promisify(execFile)(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${names[0]}`,
      '-addext',
      `subjectAltName=${san}`,
      '-addext',
      'extendedKeyUsage=serverAuth',
      '-keyout',
      files.keyFile,
      '-out',
      files.certFile,
    ],
    { timeout: 15_000 },
  );
}
