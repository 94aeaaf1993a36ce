// RSA private keys with any numbers, for tests and benchmarks of the bridge's SSH key limits:
// in OpenSSH's own format (what a crafted key usually comes as) or PKCS#1 PEM.
import { createPrivateKey, randomBytes } from 'node:crypto';

const toBig = (b: Buffer) => BigInt(`0x${b.toString('hex') || '0'}`);
const oddRandom = (bits: number) => {
  const b = randomBytes(Math.ceil(bits / 8));
  b[0] = ((b[0] as number) | 0x80) >> (b.length * 8 - bits);
  b[b.length - 1] = (b[b.length - 1] as number) | 1;
  return toBig(b);
};
function inverse(a: bigint, m: bigint): bigint | undefined {
  let [r0, r1, x0, x1] = [a % m, m, 1n, 0n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1, x0, x1] = [r1, r0 - q * r1, x1, x0 - q * x1];
  }
  return r0 === 1n ? ((x0 % m) + m) % m : undefined;
}
const mpint = (n: bigint) => {
  let hex = n.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  const b = Buffer.from(hex, 'hex');
  return (b[0] as number) & 0x80 ? Buffer.concat([Buffer.alloc(1), b]) : b;
};
const str = (b: Buffer | string) => {
  const v = Buffer.from(b);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(v.length);
  return Buffer.concat([len, v]);
};

export interface RsaNumbers {
  n: bigint;
  e: bigint;
  d: bigint;
  p: bigint;
  q: bigint;
  qi: bigint;
}

/** Factors that are not prime (so OpenSSL's checked CRT result is wrong and it redoes it). */
/**
 * The key: a `bits`-bit modulus with two small factors that don't make it (128 bits
 * each), which OpenSSL signs only by its slowest path.
 */
export function craftMismatchedRsa(bits: number): RsaNumbers {
  for (;;) {
    const p = oddRandom(128);
    const q = oddRandom(128);
    const qi = inverse(q, p);
    if (qi !== undefined)
      return { n: oddRandom(bits), e: 65537n, d: oddRandom(bits - 8), p, q, qi };
  }
}

export function craftRsa(bits: number): RsaNumbers {
  for (;;) {
    const p = oddRandom(bits / 2);
    const q = oddRandom(bits / 2);
    const qi = inverse(q, p);
    const n = p * q;
    if (qi === undefined || n.toString(2).length !== bits) continue;
    return { n, e: 65537n, d: oddRandom(bits - 8), p, q, qi };
  }
}

export function openSshKey(k: RsaNumbers, type = 'ssh-rsa', options: { encrypted?: boolean } = {}) {
  const pub = Buffer.concat([str(type), str(mpint(k.e)), str(mpint(k.n))]);
  const check = randomBytes(4);
  let priv = Buffer.concat([
    check,
    check,
    str(type),
    ...[k.n, k.e, k.d, k.qi, k.p, k.q].map((v) => str(mpint(v))),
    str('crafted'),
  ]);
  const pad = (8 - (priv.length % 8)) % 8;
  priv = Buffer.concat([priv, Buffer.from([1, 2, 3, 4, 5, 6, 7].slice(0, pad))]);
  const kdf = options.encrypted
    ? [str('aes256-ctr'), str('bcrypt'), str(Buffer.concat([str(randomBytes(16)), u32(16)]))]
    : [str('none'), str('none'), str('')];
  const body = Buffer.concat([
    Buffer.from('openssh-key-v1\0', 'latin1'),
    ...kdf,
    u32(1),
    str(pub),
    str(priv),
  ]);
  const lines = body.toString('base64').replace(/.{70}/g, '$&\n');
  return `-----BEGIN OPENSSH PRIVATE KEY-----\n${lines}\n-----END OPENSSH PRIVATE KEY-----\n`;
}
function u32(n: number) {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

/** The crafted numbers as a PKCS#1 PEM, with CRT values consistent with its (composite) factors. */
export function pkcs1(k: RsaNumbers): string {
  const b64 = (v: bigint) => mpint(v).toString('base64url').replace(/^AA/, '');
  const jwk = {
    kty: 'RSA',
    n: b64(k.n),
    e: b64(k.e),
    d: b64(k.d),
    p: b64(k.p),
    q: b64(k.q),
    dp: b64(k.d % (k.p - 1n)),
    dq: b64(k.d % (k.q - 1n)),
    qi: b64(k.qi),
  };
  return createPrivateKey({ key: jwk, format: 'jwk' })
    .export({ type: 'pkcs1', format: 'pem' })
    .toString();
}
