import { execFile } from 'node:child_process';
import { chmod, chown } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A self-signed P-256 certificate for `localhost`, valid a day, written as `server.key` and
 * `server.crt` in `dir` and owned by the OS user that the test's database server runs as (the
 * key readable by that user only, as PostgreSQL insists).
 */
export async function selfSignedCertificate(
  dir: string,
  owner: { uid: number; gid: number },
): Promise<{ key: string; crt: string }> {
  const key = join(dir, 'server.key');
  const crt = join(dir, 'server.crt');
  await run('openssl', [
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
    '/CN=localhost',
    '-keyout',
    key,
    '-out',
    crt,
  ]);
  for (const file of [key, crt]) await chown(file, owner.uid, owner.gid);
  await chmod(key, 0o600);
  return { key, crt };
}
