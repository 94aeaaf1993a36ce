import { BoundedMap } from '../bounded-map';

/** Imports an HS256 verification key from a secret (a string as its UTF-8 bytes). */
export const importHmacKey = (secret: string | Uint8Array): Promise<CryptoKey> =>
  crypto.subtle.importKey(
    'raw',
    typeof secret === 'string' ? new TextEncoder().encode(secret) : new Uint8Array(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['verify'],
  );

/**
 * jose verifies through WebCrypto and, given raw bytes, imports the key anew on every call.
 * This keeps imported keys by id, each imported once; `secret` is only called on a miss, so
 * a key kept here needs no plaintext kept beside it. A failed import is not kept.
 */
export function hmacKeyCache(max = 1000) {
  const keys = new BoundedMap<string, Promise<CryptoKey>>(max);
  return (id: string, secret: () => string | Uint8Array): Promise<CryptoKey> => {
    let key = keys.get(id);
    if (!key) {
      key = importHmacKey(secret());
      key.catch(() => keys.delete(id));
      keys.set(id, key);
    }
    return key;
  };
}
