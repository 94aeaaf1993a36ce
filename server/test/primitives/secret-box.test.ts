import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox, keyIdOf } from '../../src/domain/secret-box';

const key = () => randomBytes(32);

describe('secret box', () => {
  it('opens what it sealed', () => {
    const box = createSecretBox(key());
    const sealed = box.seal('pa55-wörd', 'ds_1', 'password');
    expect(box.open(sealed, 'ds_1', 'password')).toBe('pa55-wörd');
  });

  it('round-trips an empty string', () => {
    const box = createSecretBox(key());
    expect(box.open(box.seal('', 'ds_1', 'password'), 'ds_1', 'password')).toBe('');
  });

  it('never stores the plaintext', () => {
    const box = createSecretBox(key());
    const sealed = box.seal('plain-text-secret', 'ds_1', 'password');
    expect(sealed).not.toContain('plain-text-secret');
    expect(Buffer.from(sealed.split('.')[3]!, 'base64url').toString()).not.toContain('plain');
  });

  it('uses a fresh nonce: the same value seals differently each time', () => {
    const box = createSecretBox(key());
    const a = box.seal('same', 'ds_1', 'password');
    const b = box.seal('same', 'ds_1', 'password');
    expect(a).not.toBe(b);
    expect(a.split('.')[2]).not.toBe(b.split('.')[2]);
  });

  it('refuses to open a value under another record id', () => {
    const box = createSecretBox(key());
    const sealed = box.seal('secret', 'ds_1', 'password');
    expect(() => box.open(sealed, 'ds_2', 'password')).toThrow();
  });

  it('refuses to open a value under another field', () => {
    const box = createSecretBox(key());
    const sealed = box.seal('secret', 'ds_1', 'password');
    expect(() => box.open(sealed, 'ds_1', 'sshPassword')).toThrow();
  });

  it('refuses a tampered ciphertext', () => {
    const box = createSecretBox(key());
    const [v, id, nonce, body] = box.seal('secret', 'ds_1', 'password').split('.');
    const raw = Buffer.from(body!, 'base64url');
    raw[0]! ^= 1;
    expect(() =>
      box.open([v, id, nonce, raw.toString('base64url')].join('.'), 'ds_1', 'password'),
    ).toThrow();
  });

  it('opens values sealed under the previous key', () => {
    const oldKey = key();
    const sealed = createSecretBox(oldKey).seal('old secret', 'org_1', 'jwtSecret');
    const rotated = createSecretBox(key(), oldKey);
    expect(rotated.open(sealed, 'org_1', 'jwtSecret')).toBe('old secret');
  });

  it('seals new values under the current key, not the previous one', () => {
    const oldKey = key();
    const currentKey = key();
    const rotated = createSecretBox(currentKey, oldKey);
    expect(rotated.seal('x', 'org_1', 'jwtSecret').split('.')[1]).toBe(keyIdOf(currentKey));
  });

  it('refuses a value sealed under an unknown key', () => {
    const sealed = createSecretBox(key()).seal('secret', 'ds_1', 'password');
    expect(() => createSecretBox(key()).open(sealed, 'ds_1', 'password')).toThrow(/unknown key/);
  });

  it('refuses a value sealed under the previous key once that key is dropped', () => {
    const oldKey = key();
    const sealed = createSecretBox(oldKey).seal('secret', 'ds_1', 'password');
    expect(() => createSecretBox(key()).open(sealed, 'ds_1', 'password')).toThrow();
  });

  it('marks a value sealed under the previous key as stale', () => {
    const oldKey = key();
    const sealed = createSecretBox(oldKey).seal('secret', 'ds_1', 'password');
    expect(createSecretBox(key(), oldKey).isStale(sealed)).toBe(true);
  });

  it('does not mark a value sealed under the current key as stale', () => {
    const box = createSecretBox(key(), key());
    expect(box.isStale(box.seal('secret', 'ds_1', 'password'))).toBe(false);
  });

  it('rejects a key that is not 32 bytes', () => {
    expect(() => createSecretBox(randomBytes(16))).toThrow();
  });

  it('names a key without revealing it', () => {
    const k = key();
    expect(keyIdOf(k)).toMatch(/^[0-9a-f]{8}$/);
    expect(k.toString('hex')).not.toContain(keyIdOf(k));
  });
});
