import { createPrivateKey } from 'node:crypto';
import type { ParsedKey } from 'ssh2';

/**
 * Limits on an SSH private key's shape. Signing cost grows with the cube of the RSA modulus
 * and a crafted key (factors that are not what they claim) makes OpenSSL fall back to its
 * slowest path, so the size is capped: 8192 bits is the largest RSA key ssh-keygen makes.
 */
export const MAX_RSA_BITS = 8192;
/** OpenSSH refuses smaller RSA keys itself (RequiredRSASize). */
export const MIN_RSA_BITS = 1024;
/** The public exponent: 65537 in practice; anything large only costs the verifier. */
const MAX_RSA_EXPONENT = 2n ** 32n;

/** The key types the bridge signs with: what OpenSSH accepts by default, minus DSA. */
export const SSH_KEY_TYPES = [
  'ssh-ed25519',
  'ssh-rsa',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
] as const;

/** Why a key's shape is refused: `unsupported` (type or size), `invalid` (inconsistent). */
export type KeyShapeProblem = 'unsupported' | 'invalid';

const big = (b64url: string | undefined) =>
  b64url ? BigInt(`0x${Buffer.from(b64url, 'base64url').toString('hex') || '0'}`) : 0n;
const bitLength = (n: bigint) => (n === 0n ? 0 : n.toString(2).length);

/** Whether an RSA modulus of `bits` bits is within the limits. */
export const rsaBitsAllowed = (bits: number) => bits >= MIN_RSA_BITS && bits <= MAX_RSA_BITS;

/** The key type and RSA modulus size from an SSH public key blob, without the private half. */
export function publicBlobProblem(blob: Buffer): KeyShapeProblem | undefined {
  const read = (pos: number) => {
    if (pos + 4 > blob.length) return undefined;
    const len = blob.readUInt32BE(pos);
    if (pos + 4 + len > blob.length) return undefined;
    return { value: blob.subarray(pos + 4, pos + 4 + len), next: pos + 4 + len };
  };
  const type = read(0);
  if (!type) return 'invalid';
  const name = type.value.toString('latin1');
  if (!(SSH_KEY_TYPES as readonly string[]).includes(name)) return 'unsupported';
  if (name !== 'ssh-rsa') return undefined;
  const e = read(type.next);
  const n = e && read(e.next);
  if (!n) return 'invalid';
  const modulus = BigInt(`0x${n.value.toString('hex') || '0'}`);
  return rsaBitsAllowed(bitLength(modulus)) ? undefined : 'unsupported';
}

/**
 * Checks an RSA private key's numbers: the modulus within the limits and the product of its
 * two factors, which are balanced, and CRT values that match them. Cheap (a few
 * multiplications); it does not prove the factors prime, which would cost ~100 ms of CPU.
 */
function rsaProblem(pem: string): KeyShapeProblem | undefined {
  const jwk = createPrivateKey(pem).export({ format: 'jwk' });
  const [n, e, d, p, q] = [big(jwk.n), big(jwk.e), big(jwk.d), big(jwk.p), big(jwk.q)];
  const bits = bitLength(n);
  if (!rsaBitsAllowed(bits)) return 'unsupported';
  if (e < 3n || e > MAX_RSA_EXPONENT || e % 2n === 0n) return 'unsupported';
  if (p < 3n || q < 3n || p * q !== n) return 'invalid';
  const half = bits / 2;
  if (Math.abs(bitLength(p) - half) > 8 || Math.abs(bitLength(q) - half) > 8) return 'invalid';
  if (d <= 0n || d >= n) return 'invalid';
  const crtMatches =
    big(jwk.dp) === d % (p - 1n) && big(jwk.dq) === d % (q - 1n) && (big(jwk.qi) * q) % p === 1n;
  return crtMatches ? undefined : 'invalid';
}

/** Checks a parsed private key's type and numbers; undefined when it may be used. */
export function keyShapeProblem(key: ParsedKey): KeyShapeProblem | undefined {
  if (!(SSH_KEY_TYPES as readonly string[]).includes(key.type)) return 'unsupported';
  if (key.type !== 'ssh-rsa') return undefined; // fixed-size curves
  try {
    return rsaProblem(key.getPrivatePEM());
  } catch {
    return 'invalid';
  }
}
