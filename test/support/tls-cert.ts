import { chmod, chown } from 'node:fs/promises';
import { join } from 'node:path';
import { writeSelfSignedCert } from './self-signed-cert';

/**
 * A self-signed certificate for `localhost`, written as `server.key` and `server.crt` in `dir`
 * and owned by the OS user that the test's database server runs as (the key readable by that
 * user only, as PostgreSQL insists).
 */
export async function selfSignedCertificate(
  dir: string,
  owner: { uid: number; gid: number },
): Promise<{ key: string; crt: string }> {
  const key = join(dir, 'server.key');
  const crt = join(dir, 'server.crt');
  await writeSelfSignedCert({ keyFile: key, certFile: crt }, ['localhost']);
  for (const file of [key, crt]) await chown(file, owner.uid, owner.gid);
  await chmod(key, 0o600);
  return { key, crt };
}
