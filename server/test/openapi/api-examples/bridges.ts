import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ServedBridge, serveBridge } from '../../../../test/support/bridge';
import { type PgServer, startPgServer } from '../../../../test/support/pg-server';
import type { ExampleBridges } from './generic-errors';

/** The bridges the scenarios run on, with what they hold; `close` removes it all. */
export interface ScenarioBridges {
  bridges: ExampleBridges;
  /** The bridges' own secrets (never to appear in an answer). */
  secrets: string[];
  close(): Promise<void>;
}

/**
 * The bridges of generic-errors.ts: main (SQLite, with stand-ins for the embed bundle), the
 * same data throttled (every limit at 1 a minute), and one whose PostgreSQL has stopped.
 */
export async function startScenarioBridges(): Promise<ScenarioBridges> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-examples-'));
  // The kit's bundle only when built: the examples show stand-ins that say what they stand for.
  const embedAssetsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bk-examples-embed-'));
  for (const [file, kind] of [
    ['embed.js', 'script'],
    ['embed.css', 'stylesheet'],
  ]) {
    const text = `/* The full-embed page's ${kind}, built from packages/react (npm run build:embed). */\n`;
    fs.writeFileSync(path.join(embedAssetsDir, file!), text);
  }
  const secretEnv = {
    BRIDGE_SECRET_KEY: randomBytes(32).toString('base64'),
    BRIDGE_SESSION_SECRET: randomBytes(32).toString('base64url'),
  };
  const onDisk = { ...secretEnv, BRIDGE_DATA_DIR: dataDir };
  const started: ServedBridge[] = [];
  let pgServer: PgServer | undefined;
  const close = async () => {
    for (const bridge of started) await bridge.close();
    await pgServer?.destroy();
    for (const dir of [dataDir, embedAssetsDir]) fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const main = await serveBridge(onDisk, { embedAssetsDir });
    started.push(main);
    const throttled = await serveBridge({
      ...onDisk,
      BRIDGE_RATE_LIMIT_PER_MINUTE: '1',
      BRIDGE_VERIFY_RATE_LIMIT_PER_MINUTE: '1',
      BRIDGE_SSO_RATE_LIMIT_PER_MINUTE: '1',
    });
    started.push(throttled);
    pgServer = await startPgServer();
    const down = await serveBridge({ ...secretEnv, DATABASE_URL: pgServer.url });
    started.push(down);
    await pgServer.pause();
    return { bridges: { main, throttled, down }, secrets: Object.values(secretEnv), close };
  } catch (error) {
    await close();
    throw error;
  }
}
