import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  isAddressAllowed,
  limitLookups,
  NetworkPolicyError,
  parseLegacyIpv4,
  resolveChecked,
} from '../../src/verify/network-policy';
import { ScopeClosedError } from '../../src/verify/scope';
import { verifyConnection } from '../../src/verify/verify';

const strict = { allowPrivateNetworks: false };
const permissive = { allowPrivateNetworks: true };

describe('isAddressAllowed', () => {
  it.each([
    '169.254.169.254',
    '169.254.0.1',
    'fe80::1',
    'fe80::1%eth0',
    'fd00:ec2::254',
    '0.0.0.0',
    '0.1.2.3',
    '224.0.0.1',
    '239.255.255.250',
    'ff02::1',
    '255.255.255.255',
    '::',
    '::ffff:169.254.169.254',
    '::ffff:a9fe:a9fe',
    '64:ff9b::169.254.169.254',
    // IPv4-compatible, IPv4-translated and 6to4 spellings of the metadata address.
    '::169.254.169.254',
    '::a9fe:a9fe',
    '0:0:0:0:0:0:a9fe:a9fe',
    '::ffff:0:169.254.169.254',
    '2002:a9fe:a9fe::1',
    '::0.1.2.3',
    '::2',
  ])('always refuses %s', (address) => {
    expect(isAddressAllowed(address, permissive)).toBe(false);
    expect(isAddressAllowed(address, strict)).toBe(false);
  });

  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '::1',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '100.64.0.1',
    'fc00::1',
    'fd12:3456::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '64:ff9b::10.0.0.1',
    // The embedded IPv4 address decides: IPv4-compatible (deprecated), IPv4-translated, 6to4.
    '::127.0.0.1',
    '::7f00:1',
    '0:0:0:0:0:0:7f00:1',
    '::10.0.0.1',
    '::192.168.1.1',
    '::ffff:0:127.0.0.1',
    '2002:7f00:1::',
    '2002:c0a8:101::1',
    // Local-use NAT64 reaches hosts inside the network.
    '64:ff9b:1::a00:1',
  ])('refuses private %s unless private networks are allowed', (address) => {
    expect(isAddressAllowed(address, strict)).toBe(false);
    expect(isAddressAllowed(address, permissive)).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '2001:4860:4860::8888',
    '::ffff:8.8.8.8',
    '::8.8.8.8',
    '2002:808:808::1',
  ])('allows public %s', (address) => {
    expect(isAddressAllowed(address, strict)).toBe(true);
  });

  it('refuses what is not an IP address', () => {
    expect(isAddressAllowed('example.com', permissive)).toBe(false);
  });
});

describe('parseLegacyIpv4', () => {
  it.each([
    ['2130706433', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['10.1.2', '10.1.0.2'],
    ['169.254.43518', '169.254.169.254'],
    ['0xa9.0xfe.0xa9.0xfe', '169.254.169.254'],
  ])('reads %s as %s', (host, address) => {
    expect(parseLegacyIpv4(host)).toBe(address);
  });

  it.each(['example.com', '1.2.3.4.5', '256.1.1.1', '08.1.1.1', '4294967296', '1..2', ''])(
    'does not read %s as an address',
    (host) => {
      expect(parseLegacyIpv4(host)).toBeUndefined();
    },
  );
});

describe('resolveChecked', () => {
  it('returns the literal address with no servername', async () => {
    await expect(resolveChecked('0x7f.1', permissive)).resolves.toEqual({
      addresses: ['127.0.0.1'],
      servername: undefined,
    });
  });

  it('keeps the hostname as servername for a resolved name', async () => {
    const checked = await resolveChecked('localhost', permissive);
    expect(checked.addresses).toContain('127.0.0.1');
    expect(checked.servername).toBe('localhost');
  });

  it('checks the addresses a name resolves to', async () => {
    await expect(resolveChecked('localhost', strict)).rejects.toBeInstanceOf(NetworkPolicyError);
  });

  it('accepts a bracketed IPv6 literal', async () => {
    await expect(resolveChecked('[::1]', permissive)).resolves.toEqual({
      addresses: ['::1'],
      servername: undefined,
    });
  });
});

describe('verifyConnection and the network policy', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const body = (host: string) =>
    ({ dialect: 'POSTGRES', host, username: 'u', password: 'secret-pw' }) as const;

  it.each([
    '169.254.169.254',
    '0x7f.1',
    '2130706433',
    '::ffff:127.0.0.1',
    '10.0.0.1',
    'localhost',
    '[::127.0.0.1]',
    '::127.0.0.1',
    '[::7f00:1]',
    '[64:ff9b::7f00:1]',
  ])('refuses %s before connecting when private networks are not allowed', async (host) => {
    const connect = vi.spyOn(net.Socket.prototype, 'connect');
    const outcome = await verifyConnection(body(host), {
      timeoutMs: 2000,
      allowPrivateNetworks: false,
    });
    expect(outcome).toEqual({
      ok: false,
      reason: 'policy',
      detail: expect.any(String),
      fieldErrors: { host: expect.any(String) },
    });
    expect(connect).not.toHaveBeenCalled();
    expect(JSON.stringify(outcome)).not.toContain('secret-pw');
  });

  it.each([
    '169.254.169.254',
    'fd00:ec2::254',
    '0xa9.0xfe.0xa9fe',
    '2852039166',
    '[::169.254.169.254]',
    '[2002:a9fe:a9fe::]',
  ])('refuses metadata address %s even when private networks are allowed', async (host) => {
    const connect = vi.spyOn(net.Socket.prototype, 'connect');
    const outcome = await verifyConnection(body(host), {
      timeoutMs: 2000,
      allowPrivateNetworks: true,
    });
    expect(outcome).toMatchObject({
      ok: false,
      reason: 'policy',
      fieldErrors: { host: expect.any(String) },
    });
    expect(Object.keys(outcome.ok ? {} : outcome.fieldErrors)).toEqual(['host']);
    expect(connect).not.toHaveBeenCalled();
  });

  it('checks the SSH host and reports it as sshHost', async () => {
    const connect = vi.spyOn(net.Socket.prototype, 'connect');
    const outcome = await verifyConnection(
      {
        dialect: 'POSTGRES',
        host: 'db.internal',
        username: 'u',
        password: 'secret-pw',
        sshEnabled: true,
        sshHost: '169.254.169.254',
        sshUsername: 'tunnel',
        sshPassword: 'secret-ssh-pw',
      },
      { timeoutMs: 2000, allowPrivateNetworks: true },
    );
    expect(outcome).toEqual({
      ok: false,
      reason: 'policy',
      detail: expect.any(String),
      fieldErrors: { sshHost: expect.any(String) },
    });
    expect(connect).not.toHaveBeenCalled();
    expect(JSON.stringify(outcome)).not.toMatch(/secret-(ssh-)?pw/);
  });
});

describe('limitLookups (DNS lookups share the thread pool with WebCrypto)', () => {
  /** A lookup that answers only when told to, recording how many run at once. */
  function controlledLookup() {
    const pending = new Map<string, { resolve(): void; reject(e: Error): void }>();
    let running = 0;
    let most = 0;
    const started: string[] = [];
    const lookup = (host: string) =>
      new Promise<Array<{ address: string }>>((resolve, reject) => {
        running++;
        most = Math.max(most, running);
        started.push(host);
        pending.set(host, {
          resolve: () => {
            running--;
            resolve([{ address: '192.0.2.1' }]);
          },
          reject: (e) => {
            running--;
            reject(e);
          },
        });
      });
    return { lookup, pending, started, most: () => most };
  }
  const tick = () => new Promise((r) => setImmediate(r));

  it('runs at most `max` at once and starts the rest in order as slots free up', async () => {
    const c = controlledLookup();
    const limited = limitLookups(2, c.lookup);
    // Settled handlers attached at once: 'b' rejects while the test is still stepping.
    const settling = Promise.allSettled(['a', 'b', 'c', 'd', 'e'].map((h) => limited(h)));
    await tick();
    expect(c.started).toEqual(['a', 'b']);
    c.pending.get('a')?.resolve();
    await tick();
    expect(c.started).toEqual(['a', 'b', 'c']);
    c.pending.get('b')?.reject(Object.assign(new Error('nope'), { code: 'ENOTFOUND' }));
    c.pending.get('c')?.resolve();
    await tick();
    expect(c.started).toEqual(['a', 'b', 'c', 'd', 'e']);
    c.pending.get('d')?.resolve();
    c.pending.get('e')?.resolve();
    const settled = await settling;
    expect(settled.map((r) => r.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    expect(c.most()).toBe(2);
  });

  it('lets a waiting lookup give up at its deadline without ever starting it', async () => {
    const c = controlledLookup();
    const limited = limitLookups(1, c.lookup);
    const first = limited('slow');
    const deadline = new AbortController();
    const second = limited('never', deadline.signal);
    await tick();
    deadline.abort();
    await expect(second).rejects.toBeInstanceOf(ScopeClosedError);
    expect(await limited('late', AbortSignal.abort()).catch((e) => e)).toBeInstanceOf(
      ScopeClosedError,
    );
    // The slot was not lost: the next caller runs once the slow one ends.
    const third = limited('next');
    c.pending.get('slow')?.resolve();
    await tick();
    c.pending.get('next')?.resolve();
    await expect(first).resolves.toEqual([{ address: '192.0.2.1' }]);
    await expect(third).resolves.toEqual([{ address: '192.0.2.1' }]);
    expect(c.started).toEqual(['slow', 'next']);
  });
});
