/**
 * jose signs and verifies through WebCrypto and, given raw bytes, imports the key anew on
 * every call. Imported HS256 keys are kept here, by secret, so each is imported once.
 */
export function hmacKeyCache(max = 1000) {
  const keys = new Map<string, Promise<CryptoKey>>();
  return (secret: string | Uint8Array): Promise<CryptoKey> => {
    const id = typeof secret === 'string' ? secret : Buffer.from(secret).toString('base64');
    let key = keys.get(id);
    if (!key) {
      const bytes =
        typeof secret === 'string' ? new TextEncoder().encode(secret) : new Uint8Array(secret);
      key = crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, [
        'sign',
        'verify',
      ]);
      if (keys.size >= max) keys.delete(keys.keys().next().value as string);
      keys.set(id, key);
    }
    return key;
  };
}
