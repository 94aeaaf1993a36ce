import { hash, randomInt } from 'node:crypto';

export const API_KEY_PREFIX = 'bk_key_';
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const API_KEY_SHAPE = /^bk_key_[A-Za-z0-9]{32}$/;

/** A new key: `bk_key_` + 32 characters from a CSPRNG, its SHA-256 digest and a 4-character hint. */
export function generateApiKey(): { key: string; keyHash: string; hint: string } {
  let secret = '';
  for (let i = 0; i < 32; i++) secret += ALPHABET[randomInt(ALPHABET.length)];
  const key = `${API_KEY_PREFIX}${secret}`;
  return { key, keyHash: hashApiKey(key), hint: secret.slice(-4) };
}

// One-shot hash: no Hash object per request.
export const hashApiKey = (key: string) => hash('sha256', key, 'hex');

export const looksLikeApiKey = (token: string) => API_KEY_SHAPE.test(token);
