import { DEFAULT_PORT, type Dialect } from '@bridgekit/contract';
import type { Connection, Driver } from './driver';
import {
  type DatabaseContext,
  overReadFailure,
  timeoutFailure,
  type VerifyFailure,
} from './failures';
import { mysqlDriver } from './mysql';
import { tryNextAddress } from './network-policy';
import { postgresDriver } from './postgres';
import { type ConnectionInput, openRoute, type Progress, type RouteOptions } from './route';
import { Scope } from './scope';

export type { Connection } from './driver';
export type { ConnectionInput } from './route';

const DRIVERS: Record<Dialect, Driver> = { POSTGRES: postgresDriver, MYSQL: mysqlDriver };

/**
 * What a connection check (verify, health) may read from the database server (directly or
 * through the SSH tunnel): a handshake and `SELECT 1` take a few kB. The drivers buffer a
 * protocol message whole, whatever length it declares, so without a cap one server could make
 * the bridge hold gigabytes for the whole deadline.
 */
export const CHECK_MAX_READ_BYTES = 1 << 20;

export interface ConnectionOptions extends RouteOptions {
  /** One deadline for everything: DNS, SSH, TCP, TLS, authentication, and the work. */
  timeoutMs: number;
  /** Bytes the database server may send before the attempt fails; CHECK_MAX_READ_BYTES if unset. */
  maxReadBytes?: number;
  /** The service's outbound address, named in timeout messages for firewall allow-lists. */
  serviceIp?: string | undefined;
}

export type ConnectionOutcome<T> = { ok: true; value: T } | VerifyFailure;

interface Attempt<T> extends Progress {
  done: boolean;
  value?: T;
}

/**
 * Connects to a data source (directly or through its SSH tunnel, under the network policy),
 * runs `work` on the open connection, and closes everything, all within one deadline. Never
 * throws for a connection failure: a failure to connect, or an error from `work`, comes back as
 * the shared failure table's outcome (the fields to fix, a stable `reason`). Nothing it opens
 * outlives the call; `signal` aborts when the deadline passes.
 */
export async function withConnection<T>(
  input: ConnectionInput,
  options: ConnectionOptions,
  work: (connection: Connection, signal: AbortSignal) => Promise<T>,
): Promise<ConnectionOutcome<T>> {
  const maxReadBytes = options.maxReadBytes ?? CHECK_MAX_READ_BYTES;
  const scope = new Scope({ maxReadBytes });
  const attempt: Attempt<T> = { phase: input.sshEnabled ? 'ssh' : 'database', done: false };
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), options.timeoutMs);
  });
  try {
    // Before the finally below, the scope only closes when the servers sent too much.
    const overRead = new Promise<'over-read'>((resolve) =>
      scope.signal.addEventListener('abort', () => resolve('over-read'), { once: true }),
    );
    const result = await Promise.race([
      run(input, options, scope, attempt, work),
      deadline,
      overRead,
    ]);
    // Whatever the drivers made of their sockets closing under them.
    if (scope.overRead) {
      return overReadFailure(DRIVERS[input.dialect].product, maxReadBytes);
    }
    if (result !== 'timeout' && result !== 'over-read') return result;
    // Only the polite goodbye was slow.
    if (attempt.done) return { ok: true, value: attempt.value as T };
    return timeoutFailure(attempt.phase, input.sshEnabled === true, options.serviceIp);
  } finally {
    clearTimeout(timer);
    scope.close();
  }
}

async function run<T>(
  input: ConnectionInput,
  options: ConnectionOptions,
  scope: Scope,
  attempt: Attempt<T>,
  work: (connection: Connection, signal: AbortSignal) => Promise<T>,
): Promise<ConnectionOutcome<T>> {
  const driver = DRIVERS[input.dialect];
  const port = input.port ?? DEFAULT_PORT[input.dialect];
  const context: DatabaseContext = {
    port,
    viaSsh: input.sshEnabled === true,
    serviceIp: options.serviceIp,
    product: driver.product,
  };
  const route = await openRoute(input, port, options, scope, attempt, context);
  if ('ok' in route) return route;

  const user = input.username ?? '';
  let connection: Connection | undefined;
  let failure: unknown;
  for (const address of route.addresses) {
    try {
      connection = await driver.connect(scope, {
        address,
        port: route.port,
        servername: route.servername,
        ssl: input.sslEnabled ?? true,
        user,
        password: input.password,
        database: input.databaseName ?? driver.defaultDatabase(user),
      });
      break;
    } catch (error) {
      failure = error;
      if (!tryNextAddress(error)) break;
    }
  }
  if (!connection) return driver.failure(failure, context);
  try {
    attempt.value = await work(connection, scope.signal);
    attempt.done = true;
  } catch (error) {
    return driver.failure(error, context);
  }
  await connection.close().catch(() => {}); // the work is done; a failed goodbye changes nothing
  return { ok: true, value: attempt.value };
}
