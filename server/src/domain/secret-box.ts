import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

export interface SecretKey {
  id: string;
  key: Buffer;
}

const VERSION = 'v1';

/** A key id that names the key without revealing it. */
export const keyIdOf = (key: Buffer) => createHash('sha256').update(key).digest('hex').slice(0, 8);

/**
 * AES-256-GCM for secrets at rest: a fresh 96-bit nonce per value, the key id in the stored
 * value for rotation, and `recordId:field` as associated data so a value can't be moved
 * to another record or field.
 */
export function createSecretBox(current: Buffer, previous?: Buffer) {
  if (current.length !== 32) throw new Error('secret key must be 32 bytes');
  const keys = new Map<string, Buffer>([[keyIdOf(current), current]]);
  if (previous) keys.set(keyIdOf(previous), previous);
  const currentId = keyIdOf(current);

  return {
    currentKeyId: currentId,
    seal(plaintext: string, recordId: string, field: string): string {
      const nonce = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current, nonce);
      cipher.setAAD(Buffer.from(`${recordId}:${field}`));
      const body = Buffer.concat([
        cipher.update(plaintext, 'utf8'),
        cipher.final(),
        cipher.getAuthTag(),
      ]);
      return [VERSION, currentId, nonce.toString('base64url'), body.toString('base64url')].join(
        '.',
      );
    },
    open(sealed: string, recordId: string, field: string): string {
      const [version, keyId, nonce, body] = sealed.split('.');
      const key = keyId ? keys.get(keyId) : undefined;
      if (version !== VERSION || !key || !nonce || !body) {
        throw new Error(`cannot decrypt ${field}: unknown key or format`);
      }
      const raw = Buffer.from(body, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'));
      decipher.setAAD(Buffer.from(`${recordId}:${field}`));
      decipher.setAuthTag(raw.subarray(raw.length - 16));
      return Buffer.concat([
        decipher.update(raw.subarray(0, raw.length - 16)),
        decipher.final(),
      ]).toString('utf8');
    },
    /** True when the value is sealed under an older key and should be re-encrypted. */
    isStale(sealed: string): boolean {
      return sealed.split('.')[1] !== currentId;
    },
  };
}
export type SecretBox = ReturnType<typeof createSecretBox>;
