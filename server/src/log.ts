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

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const paths = [
    ...SECRET_KEYS,
    ...SECRET_KEYS.map((k) => `*.${k}`),
    'req.headers.authorization',
    'req.headers.cookie',
  ];
  return pino(
    { level, redact: { paths, censor: '[redacted]' }, base: { service: 'bridge' } },
    destination,
  );
}
