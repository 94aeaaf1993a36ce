import type { ErrorCode } from '@bridgekit/contract';
import { ApiError } from './api-error';

/** What the bridge depends on at request time: its store (PostgreSQL or SQLite) and Redis. */
export type Dependency = 'store' | 'redis';

/**
 * How a dependency failed: `unavailable` (refused, dropped, shutting down), `timeout` (it did not
 * answer within its bound: connect, pool acquire, statement, command), `full` (out of disk).
 */
export type FaultKind = 'unavailable' | 'timeout' | 'full';

export interface Fault {
  dependency: Dependency;
  kind: FaultKind;
}

/** Seconds a client should wait before retrying, by fault: a full disk takes an operator. */
export const RETRY_AFTER_SECONDS: Record<FaultKind, number> = {
  unavailable: 2,
  timeout: 2,
  full: 30,
};

// Node socket errors while reaching PostgreSQL (the last two: a statement written to a
// connection just dropped, e.g. the rollback after a statement timeout).
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ERR_STREAM_DESTROYED',
  'ERR_STREAM_WRITE_AFTER_END',
]);

const STORE_CODES: Record<string, FaultKind> = {
  // SQLSTATE: connection exceptions, shutdown, too many connections, out of disk or memory
  '08000': 'unavailable',
  '08001': 'unavailable',
  '08003': 'unavailable',
  '08004': 'unavailable',
  '08006': 'unavailable',
  '57P01': 'unavailable',
  '57P02': 'unavailable',
  '57P03': 'unavailable',
  '53300': 'unavailable',
  '53200': 'unavailable',
  '53100': 'full',
  // statement_timeout or a cancel; lock_timeout; idle_in_transaction_session_timeout
  '57014': 'timeout',
  '55P03': 'timeout',
  '25P03': 'timeout',
  // SQLite: out of disk space (the file system's ENOSPC)
  SQLITE_FULL: 'full',
  ENOSPC: 'full',
};
// SQLite's primary codes, which also cover their extended forms (SQLITE_IOERR_WRITE …): locked
// past busy_timeout, an I/O error, the file unreadable.
const SQLITE_PREFIXES: [string, FaultKind][] = [
  ['SQLITE_BUSY', 'timeout'],
  ['SQLITE_IOERR', 'unavailable'],
  ['SQLITE_CANTOPEN', 'unavailable'],
];

// pg, pg-pool and ioredis raise these without a code; their texts are fixed in those libraries.
const STORE_MESSAGES: Record<string, FaultKind> = {
  'timeout exceeded when trying to connect': 'timeout',
  'Connection terminated due to connection timeout': 'timeout',
  'Query read timeout': 'timeout',
  'Connection terminated unexpectedly': 'unavailable',
  'Client has encountered a connection error and is not queryable': 'unavailable',
  'Client was closed and is not queryable': 'unavailable',
};
const REDIS_MESSAGES: Record<string, FaultKind> = {
  'Command timed out': 'timeout',
  'Connection is closed.': 'unavailable',
  "Stream isn't writeable and enableOfflineQueue options is false": 'unavailable',
};
// Redis replies meaning "not now" (loading, read-only replica, failing to persist, out of memory).
const REDIS_REPLY_PREFIXES = [
  'LOADING',
  'READONLY',
  'MASTERDOWN',
  'MISCONF',
  'OOM',
  'TRYAGAIN',
  'CLUSTERDOWN',
  'BUSY',
  'NOREPLICAS',
];

/**
 * The dependency at fault when `err` says PostgreSQL, SQLite or Redis can't serve right now;
 * undefined for anything else (a bug, answered 500). The one place that reads the failure modes
 * of pg, pg-pool, better-sqlite3 and ioredis.
 */
export function faultOf(err: unknown): Fault | undefined {
  const e = err as { code?: unknown; message?: unknown; name?: unknown } | null;
  if (!e || typeof e !== 'object') return undefined;
  const { code, message, name } = e;
  if (name === 'MaxRetriesPerRequestError') return { dependency: 'redis', kind: 'unavailable' };
  if (name === 'ReplyError' && typeof message === 'string') {
    const word = message.split(' ', 1)[0]!;
    return REDIS_REPLY_PREFIXES.includes(word)
      ? { dependency: 'redis', kind: word === 'OOM' ? 'full' : 'unavailable' }
      : undefined;
  }
  if (typeof code === 'string') {
    if (SOCKET_CODES.has(code)) return { dependency: 'store', kind: 'unavailable' };
    const kind = STORE_CODES[code] ?? SQLITE_PREFIXES.find(([p]) => code.startsWith(p))?.[1];
    if (kind) return { dependency: 'store', kind };
  }
  if (typeof message === 'string') {
    if (Object.hasOwn(STORE_MESSAGES, message)) {
      return { dependency: 'store', kind: STORE_MESSAGES[message]! };
    }
    if (Object.hasOwn(REDIS_MESSAGES, message)) {
      return { dependency: 'redis', kind: REDIS_MESSAGES[message]! };
    }
  }
  // A wrapper (a transaction's rollback that failed too) keeps the original as its cause.
  return e instanceof Error && e.cause !== undefined && e.cause !== err
    ? faultOf(e.cause)
    : undefined;
}

const CODES: Record<Dependency, Record<FaultKind, ErrorCode>> = {
  store: { unavailable: 'store_unavailable', timeout: 'store_unavailable', full: 'store_full' },
  redis: {
    unavailable: 'redis_unavailable',
    timeout: 'redis_unavailable',
    full: 'redis_unavailable',
  },
};
const DETAILS: Record<Dependency, Record<FaultKind, string>> = {
  store: {
    unavailable: 'The store is unavailable; retry shortly',
    timeout: 'The store did not answer in time; retry shortly',
    full: 'The store is out of disk space; nothing was saved; retry later',
  },
  redis: {
    unavailable: 'Redis is unavailable; retry shortly',
    timeout: 'Redis did not answer in time; retry shortly',
    full: 'Redis is out of memory; retry later',
  },
};

/**
 * The 503 ServiceUnavailable (code, detail, Retry-After) a client gets for `fault`; `code`
 * overrides the fault's own for a caller whose clients know a more specific one.
 */
export function faultError(fault: Fault, cause?: unknown, code?: ErrorCode): ApiError {
  const retryAfter = RETRY_AFTER_SECONDS[fault.kind];
  return new ApiError('ServiceUnavailable', DETAILS[fault.dependency][fault.kind], {
    code: code ?? CODES[fault.dependency][fault.kind],
    params: { dependency: fault.dependency, fault: fault.kind, retryAfter },
    cause,
    headers: { 'Retry-After': String(retryAfter) },
  });
}

/** `err` as a 503 when a dependency is at fault (see `faultOf`), else undefined. */
export function unavailableError(err: unknown): ApiError | undefined {
  const fault = faultOf(err);
  return fault ? faultError(fault, err) : undefined;
}
