import fs from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { bcryptPbkdf, KdfError } from '../../src/verify/ssh-key-kdf';

const require = createRequire(import.meta.url);
const { pbkdf } = require(createRequire(require.resolve('ssh2')).resolve('bcrypt-pbkdf')) as {
  pbkdf(...args: unknown[]): number;
};

const input = (rounds: number) => ({
  passphrase: Buffer.from('kdf-test-passphrase'),
  salt: Buffer.from('0123456789abcdef'),
  rounds,
  length: 48,
});

/** The nice value of each thread of this process (Linux). */
function threadNices(): number[] {
  return fs.readdirSync('/proc/self/task').map((tid) => {
    const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

describe('bcryptPbkdf in a worker', () => {
  it('derives what bcrypt-pbkdf derives in-process', async () => {
    const { passphrase, salt, rounds, length } = input(4);
    const expected = new Uint8Array(length);
    pbkdf(passphrase, passphrase.length, salt, salt.length, expected, length, rounds);
    const derived = await bcryptPbkdf(input(4), new AbortController().signal);
    expect(derived.equals(Buffer.from(expected))).toBe(true);
  });

  it('runs on a thread at the lowest priority, so the event loop comes first', async () => {
    const controller = new AbortController();
    const running = bcryptPbkdf(input(100_000), controller.signal).catch((e: unknown) => e);
    let nices: number[] = [];
    const deadline = Date.now() + 5000;
    while (!nices.includes(19) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      nices = threadNices();
    }
    controller.abort();
    expect(nices).toContain(19);
    expect(await running).toBeInstanceOf(KdfError);
  });

  it('rejects as aborted, at once, when the signal aborts mid-derivation', async () => {
    const controller = new AbortController();
    const running = bcryptPbkdf(input(100_000), controller.signal).catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    controller.abort();
    const error = await running;
    expect(performance.now() - started).toBeLessThan(1000);
    expect(error).toBeInstanceOf(KdfError);
    expect((error as KdfError).aborted).toBe(true);
  });
});
