import type { VerifyDataSourceBody } from '@bridgekit/contract';
import { type ConnectionOptions, withConnection } from './connection';
import type { VerifyFailure } from './failures';

export type { VerifyFailure } from './failures';
export type VerifyOptions = ConnectionOptions;
export type VerifyOutcome = { ok: true } | VerifyFailure;

/**
 * Connects with the given credentials, runs `SELECT 1` and disconnects, all within one
 * deadline. Never throws for a connection failure: the outcome says which fields to fix.
 * Nothing it opens outlives the call.
 */
export async function verifyConnection(
  input: VerifyDataSourceBody,
  options: VerifyOptions,
): Promise<VerifyOutcome> {
  const outcome = await withConnection(input, options, (connection) =>
    connection.query('SELECT 1'),
  );
  return outcome.ok ? { ok: true } : outcome;
}
