import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { ScopeClosedError } from './scope';
import { createSlots } from './slots';

export interface NetworkPolicy {
  allowPrivateNetworks: boolean;
}

export interface CheckedAddress {
  /** Every address the host resolved to, in resolver order, all checked: connect to these. */
  addresses: [string, ...string[]];
  /** The name to present for TLS SNI, or undefined when the host was an IP literal. */
  servername: string | undefined;
}

/** Thrown when a resolved address is not allowed; `code` is the stable reason. */
export class NetworkPolicyError extends Error {
  readonly code = 'policy';
  constructor(readonly address: string) {
    super('The address is not allowed by the network policy');
    this.name = 'NetworkPolicyError';
  }
}

type Rule = readonly [network: string, prefix: number];

// Link-local (cloud metadata lives here), "this network", multicast, reserved and broadcast.
const ALWAYS_V4: Rule[] = [
  ['0.0.0.0', 8],
  ['169.254.0.0', 16],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];
const ALWAYS_V6: Rule[] = [
  ['::', 128],
  ['fe80::', 10],
  ['ff00::', 8],
  ['fd00:ec2::254', 128],
];
const PRIVATE_V4: Rule[] = [
  ['127.0.0.0', 8],
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['100.64.0.0', 10],
];
const PRIVATE_V6: Rule[] = [
  ['fc00::', 7],
  // Local-use NAT64 (RFC 8215): a translator inside the network, to its IPv4 hosts.
  ['64:ff9b:1::', 48],
];
// ::1 is also ::0.0.0.1, an IPv4-compatible spelling of 0.0.0.1 (always refused): it is looked
// at first, as the loopback address it is.
const LOOPBACK_V6 = new BlockList();
LOOPBACK_V6.addSubnet('::1', 128, 'ipv6');

/** The two IPv6 groups that spell an IPv4 address (`169.254.0.0` → `a9fe:0`). */
function v4Groups(network: string): string {
  const [a = 0, b = 0, c = 0, d = 0] = network.split('.').map(Number);
  return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

/**
 * IPv6 ranges that carry an IPv4 address, and where the IPv4 address sits: each IPv4 rule is
 * also a rule on the same addresses written in each of them, so they are judged by the IPv4
 * address they reach. IPv4-mapped addresses (::ffff:a.b.c.d) BlockList matches by itself.
 */
const V4_IN_V6: Array<(network: string, prefix: number) => Rule> = [
  // IPv4-compatible (::a.b.c.d, deprecated but still routed by some stacks to the IPv4 host).
  (network, prefix) => [`::${network}`, 96 + prefix],
  // IPv4-translated (SIIT, ::ffff:0:a.b.c.d).
  (network, prefix) => [`::ffff:0:${network}`, 96 + prefix],
  // NAT64's well-known prefix (64:ff9b::a.b.c.d).
  (network, prefix) => [`64:ff9b::${network}`, 96 + prefix],
  // 6to4 (2002:AABB:CCDD::/48 reaches a.b.c.d through a relay).
  (network, prefix) => [`2002:${v4Groups(network)}::`, 16 + prefix],
];

function blockList(v4: Rule[], v6: Rule[]): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of v4) {
    list.addSubnet(network, prefix, 'ipv4');
    for (const within of V4_IN_V6) {
      const [v6Network, v6Prefix] = within(network, prefix);
      list.addSubnet(v6Network, v6Prefix, 'ipv6');
    }
  }
  for (const [network, prefix] of v6) list.addSubnet(network, prefix, 'ipv6');
  return list;
}

const ALWAYS_REFUSED = blockList(ALWAYS_V4, ALWAYS_V6);
const PRIVATE = blockList(PRIVATE_V4, PRIVATE_V6);

/** Whether one IP address may be connected to under the policy. */
export function isAddressAllowed(address: string, policy: NetworkPolicy): boolean {
  const bare = address.split('%')[0] ?? address; // drop an IPv6 zone id
  const family = isIP(bare);
  if (family === 0) return false;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (type === 'ipv6' && LOOPBACK_V6.check(bare, type)) return policy.allowPrivateNetworks;
  if (ALWAYS_REFUSED.check(bare, type)) return false;
  return policy.allowPrivateNetworks || !PRIVATE.check(bare, type);
}

const V4_PART = /^(?:0x[0-9a-f]*|0[0-7]*|[1-9][0-9]*)$/i;

/**
 * Parses the numeric IPv4 forms inet_aton accepts (`2130706433`, `0x7f.1`, `0177.0.0.1`),
 * so they are treated as the address they encode without asking a resolver.
 */
export function parseLegacyIpv4(host: string): string | undefined {
  const parts = host.split('.');
  if (parts.length > 4 || !parts.every((p) => V4_PART.test(p))) return undefined;
  const values = parts.map((p) =>
    /^0x/i.test(p)
      ? Number.parseInt(p.slice(2) || '0', 16)
      : /^0./.test(p)
        ? Number.parseInt(p, 8)
        : Number(p),
  );
  const last = values.pop() ?? 0;
  if (values.some((v) => v > 255)) return undefined;
  if (last >= 2 ** (8 * (4 - values.length))) return undefined;
  let value = last;
  values.forEach((v, i) => {
    value += v * 2 ** (8 * (3 - i));
  });
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

/** The address an IP literal denotes (`[::1]`, `0x7f.1`...), or undefined for a name. */
export function ipLiteral(host: string): string | undefined {
  const unbracketed = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return isIP(unbracketed) !== 0 ? unbracketed : parseLegacyIpv4(host);
}

type Lookup = (host: string) => Promise<Array<{ address: string }>>;

/**
 * Runs `lookup` at most `max` at a time; the rest wait their turn, or give up when `signal`
 * aborts (the verify's deadline) before they start. A started lookup can't be cancelled.
 */
export function limitLookups(max: number, lookupFn: Lookup) {
  const slots = createSlots({ limit: max });
  return async (host: string, signal?: AbortSignal) => {
    const release = await slots.acquire(signal).catch(() => {
      throw new ScopeClosedError();
    });
    try {
      return await lookupFn(host);
    } finally {
      release();
    }
  };
}

/**
 * getaddrinfo runs on libuv's thread pool (4 threads by default), which file I/O, zlib and key
 * derivation share. A resolver that never answers holds a thread for its whole timeout, so
 * verifies of such hosts could otherwise take every thread and stall all of those for every
 * organization: they get two threads at most.
 */
const MAX_CONCURRENT_LOOKUPS = 2;
const limitedLookup = limitLookups(MAX_CONCURRENT_LOOKUPS, (host) =>
  lookup(host, { all: true, verbatim: true }),
);

/**
 * Resolves `host` once and checks every address it resolves to; the caller connects
 * to the returned addresses so a second lookup cannot swap in another (DNS rebinding).
 * Lookup failures keep their Node `code` (ENOTFOUND, EAI_AGAIN...).
 */
export async function resolveChecked(
  host: string,
  policy: NetworkPolicy,
  signal?: AbortSignal,
): Promise<CheckedAddress> {
  const ip = ipLiteral(host);
  const addresses = ip ? [{ address: ip }] : await limitedLookup(host, signal);
  if (addresses.length === 0) {
    throw Object.assign(new Error('The host did not resolve'), { code: 'ENOTFOUND' });
  }
  for (const { address } of addresses) {
    if (!isAddressAllowed(address, policy)) throw new NetworkPolicyError(address);
  }
  return {
    addresses: addresses.map((a) => a.address) as [string, ...string[]],
    servername: ip ? undefined : host,
  };
}

// Like libpq: when an address cannot be connected to at all, the next one is tried;
// once a server answers, its verdict stands.
const NEXT_ADDRESS_CODES = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'EAFNOSUPPORT',
]);

/** Whether a connect failure on one address should move on to the host's next address. */
export function tryNextAddress(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && NEXT_ADDRESS_CODES.has(code);
}
