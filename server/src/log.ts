import os from 'node:os';
import { SECRET_FIELDS } from '@bridgekit/contract';
import pino, { type DestinationStream, type Logger } from 'pino';

// Defense in depth: nothing logs bodies or headers, and these paths are censored if anything tries.
const SECRET_KEYS = [
  'authorization',
  'cookie',
  ...SECRET_FIELDS,
  'jwtSecret',
  'jwt',
  'sessionToken',
  'apiKey',
  'key',
];

const FLUSH_EVERY_MS = 200;

/**
 * stdout, written in batches: when 4 kB are pending, every 200 ms, and at exit (pino flushes
 * its destination then, even on a crash). One write per request would cost a system call each.
 */
export function bufferedStdout(): DestinationStream {
  const stream = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  setInterval(() => stream.flush(), FLUSH_EVERY_MS).unref();
  return stream;
}

export function createLogger(
  level: string,
  destination: DestinationStream = bufferedStdout(),
): Logger {
  const paths = [
    ...SECRET_KEYS,
    ...SECRET_KEYS.map((k) => `*.${k}`),
    'req.headers.authorization',
    'req.headers.cookie',
  ];
  return pino(
    {
      level,
      redact: { paths, censor: '[redacted]' },
      // Which instance wrote the line: several run behind one balancer.
      base: { service: 'bridge', hostname: os.hostname(), pid: process.pid },
    },
    destination,
  );
}
