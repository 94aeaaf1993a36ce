import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { Writable } from 'node:stream';
import { createApp } from '../../src/app';
import { bootstrap } from '../../src/bootstrap';
import { loadConfig } from '../../src/config';
import type { Deps } from '../../src/deps';
import { createLogger } from '../../src/log';
import type { TestResponse } from '../support/bridge';

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
  const config = loadConfig({
    NODE_ENV: 'test',
    BRIDGE_DATA_DIR: options.dataDir,
    DATABASE_URL: options.databaseUrl,
    BRIDGE_SECRET_KEY: options.secretKey,
    BRIDGE_SECRET_KEY_PREVIOUS: options.previousKey,
    BRIDGE_SESSION_SECRET: options.sessionSecret,
    LOG_LEVEL: 'info',
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const deps = await bootstrap(config, createLogger(config.logLevel, sink));
  const server: Server = await new Promise((resolve) => {
    const s = createApp(deps).listen(0, '127.0.0.1', () => resolve(s));
  });
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    url,
    deps,
    logs,
    async request(method, p, requestOptions = {}) {
      const headers: Record<string, string> = {};
      if (requestOptions.key) headers.authorization = `Bearer ${requestOptions.key}`;
      let body: string | undefined;
      if (requestOptions.body !== undefined) {
        body = JSON.stringify(requestOptions.body);
        headers['content-type'] = 'application/json';
      }
      const res = await fetch(`${url}${p}`, { method, headers, body });
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: res.status, headers: res.headers, body: parsed, text };
    },
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await deps.store.close();
    },
  };
}
