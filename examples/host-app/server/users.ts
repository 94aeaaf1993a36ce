import type { IncomingMessage } from 'node:http';
import type { SsoUser } from '@bridgekit/node';

/**
 * The host's own users. A stand-in for your login: a cookie names one of them. The `role`
 * is what this host vouches for; the bridge applies it when it creates the membership.
 */
export const USERS = {
  ada: { email: 'ada@example.test', firstName: 'Ada', lastName: 'Lovelace', role: 'ADMIN' },
  grace: { email: 'grace@example.test', firstName: 'Grace', lastName: 'Hopper', role: 'MEMBER' },
} as const satisfies Record<string, SsoUser>;

export type UserId = keyof typeof USERS;
export type HostUser = (typeof USERS)[UserId];

export const SIGN_IN_COOKIE = 'host_user';

export const isUserId = (value: unknown): value is UserId =>
  typeof value === 'string' && Object.hasOwn(USERS, value);

/** The signed-in host user of a request, if any. */
export function currentUser(req: IncomingMessage): HostUser | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [name, value] = part.trim().split('=');
    if (name === SIGN_IN_COOKIE && isUserId(value)) return USERS[value];
  }
  return undefined;
}
