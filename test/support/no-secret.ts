import { expect } from 'vitest';

/**
 * Fails when any of `secrets` appears in `said`: a string as it is, anything else as its JSON
 * (an outcome, a response body, log lines).
 */
export function expectNoSecret(said: unknown, ...secrets: string[]): void {
  const text = typeof said === 'string' ? said : JSON.stringify(said);
  for (const secret of secrets) {
    if (!secret) throw new Error('expectNoSecret: an empty secret matches everything');
    expect(text).not.toContain(secret);
  }
}
