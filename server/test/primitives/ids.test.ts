import { MemberId, OrganizationId, UserId } from '@bridgekit/contract';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { newId } from '../../src/domain/ids';

describe('newId', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each(['org', 'ds', 'mem', 'usr', 'key'] as const)(
    'starts a %s id with its prefix',
    (prefix) => {
      expect(newId(prefix)).toMatch(new RegExp(`^${prefix}_[0-9A-Z]{26}$`));
    },
  );

  it('makes ids the contract accepts', () => {
    expect(OrganizationId.safeParse(newId('org')).success).toBe(true);
    expect(MemberId.safeParse(newId('mem')).success).toBe(true);
    expect(UserId.safeParse(newId('usr')).success).toBe(true);
  });

  it('makes 10 000 ids in strictly ascending order', () => {
    const ids = Array.from({ length: 10_000 }, () => newId('org'));
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
  });

  it('makes 10 000 unique ids', () => {
    const ids = Array.from({ length: 10_000 }, () => newId('org'));
    expect(new Set(ids).size).toBe(10_000);
  });

  it('stays ascending within one frozen millisecond', () => {
    vi.useFakeTimers({ now: new Date('2030-01-01T00:00:00.000Z') });
    const ids = Array.from({ length: 1000 }, () => newId('ds'));
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
  });

  it('stays ascending when the clock goes backwards', () => {
    vi.useFakeTimers({ now: new Date('2031-01-01T00:00:00.000Z') });
    const before = newId('mem');
    vi.setSystemTime(new Date('2029-01-01T00:00:00.000Z'));
    expect(newId('mem') > before).toBe(true);
  });

  it('orders ids by creation time across milliseconds', () => {
    vi.useFakeTimers({ now: new Date('2032-01-01T00:00:00.000Z') });
    const earlier = newId('usr');
    vi.setSystemTime(new Date('2032-01-01T00:00:00.001Z'));
    const later = newId('usr');
    expect(later.slice(4, 14) > earlier.slice(4, 14)).toBe(true);
  });
});
