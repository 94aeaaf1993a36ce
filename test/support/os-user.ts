import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The uid and gid of an OS user: a private server runs as it and owns its files. */
export async function osUserIds(user: string): Promise<{ uid: number; gid: number }> {
  const { stdout: uid } = await run('id', ['-u', user]);
  const { stdout: gid } = await run('id', ['-g', user]);
  return { uid: Number(uid.trim()), gid: Number(gid.trim()) };
}
