import { initPgDataDir } from './pg-cluster';

export interface PgServer {
  /** `postgres://` URL of the cluster's `postgres` database (trust auth on loopback). */
  url: string;
  port: number;
  /** Stops the server (`pg_ctl stop -m fast`); the data stays. */
  pause(): Promise<void>;
  /** Starts it again on the same port and data. */
  resume(): Promise<void>;
  /** Stops it for good and deletes the data. */
  destroy(): Promise<void>;
}

/**
 * A private PostgreSQL cluster on a free loopback port that a test may stop and start at
 * will (the shared one on 5432 is never touched).
 */
export async function startPgServer(): Promise<PgServer> {
  const cluster = await initPgDataDir({
    prefix: 'bk-pgfault-',
    authHost: 'trust',
    settings: () => ['max_connections = 40'],
  });
  try {
    await cluster.start();
  } catch (error) {
    await cluster.remove();
    throw error;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${cluster.port}/postgres`,
    port: cluster.port,
    async pause() {
      await cluster.stop('fast');
    },
    async resume() {
      await cluster.start();
    },
    destroy: cluster.remove,
  };
}
