import { randomBytes } from 'node:crypto';
import { ErrorBody, type ErrorCode, type ErrorTitle } from '@bridgekit/contract';
import { expect } from 'vitest';
import { serveBridge, type TestResponse } from '../../../test/support/bridge';
import type { Deps } from '../../src/deps';

/** The answer is this error: its status, and the body's title and code. */
export function expectError(
  res: { status: number; body: unknown },
  status: number,
  title: ErrorTitle,
  code: ErrorCode,
) {
  expect(res.status).toBe(status);
  expect(ErrorBody.parse(res.body).error).toMatchObject({ title, code });
}

/** A fresh AES-256 key as BRIDGE_SECRET_KEY expects it (32 bytes, base64). */
export const newSecretKey = () => randomBytes(32).toString('base64');

export interface OpenedBridge {
  url: string;
  deps: Deps;
  logs: string[];
  request(
    method: string,
    path: string,
    options?: { key?: string; body?: unknown },
  ): Promise<TestResponse>;
  /** Stops the server and closes the store; the data dir and database are kept. */
  stop(): Promise<void>;
}

/**
 * A bridge on an EXISTING data dir (SQLite) or database (PostgreSQL) with chosen keys, so a
 * test can stop it, rotate keys with the CLI and start another one on the same data.
 * (The shared harness always makes fresh data and deletes it on stop.)
 */
export async function openBridge(options: {
  dataDir: string;
  databaseUrl?: string | undefined;
  secretKey: string;
  previousKey?: string;
  sessionSecret: string;
}): Promise<OpenedBridge> {
  const served = await serveBridge({
    BRIDGE_DATA_DIR: options.dataDir,
    DATABASE_URL: options.databaseUrl,
    BRIDGE_SECRET_KEY: options.secretKey,
    BRIDGE_SECRET_KEY_PREVIOUS: options.previousKey,
    BRIDGE_SESSION_SECRET: options.sessionSecret,
  });
  return { ...served, stop: served.close };
}
