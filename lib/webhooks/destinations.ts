import { lookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { setBounded } from '../bounded-map.ts';

/** One entry of `WEBHOOK_ALLOWED_NETWORKS`: a CIDR block (a bare address is a block of one). */
export interface Network {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a host name resolves to, in the resolver's order. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));

export const ALLOWED_NETWORKS_VARIABLE = 'WEBHOOK_ALLOWED_NETWORKS';

/** Parses `WEBHOOK_ALLOWED_NETWORKS`-style text: comma-separated IPv4 and IPv6 CIDR blocks or addresses. */
export function parseNetworks(text: string): Network[] {
  const entries = text.split(',').map((entry) => entry.trim());
  if (entries.every((entry) => entry === '')) throw new Error('expected at least one CIDR block');
  return entries.map((entry) => {
    const match = /^([^/%\s]+)(?:\/(\d{1,3}))?$/.exec(entry);
    const version = match ? isIP(match[1]!) : 0;
    if (!match || version === 0) throw new Error(`${JSON.stringify(entry)} is not an IP address or CIDR block`);
    const max = version === 4 ? 32 : 128;
    const prefix = match[2] === undefined ? max : Number(match[2]);
    if (prefix > max) throw new Error(`${JSON.stringify(entry)}: an IPv${version} prefix is at most /${max}`);
    return { address: match[1]!, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
  });
}

/** Loopback, unspecified, private, shared (CGNAT), link-local, documentation, benchmark, multicast and reserved. */
const NON_PUBLIC_IPV4 = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
];
/**
 * `::/96` holds the unspecified and loopback addresses and the deprecated IPv4-compatible ones. Forms that
 * embed an IPv4 address (mapped, NAT64, 6to4) are judged by that address instead, see `embeddedIPv4`.
 */
const NON_PUBLIC_IPV6 = [
  '::/96',
  '::ffff:0:0:0/96',
  '64:ff9b:1::/48',
  '100::/64',
  '2001::/23',
  '2001:db8::/32',
  '3fff::/20',
  'fc00::/7',
  'fe80::/10',
  'fec0::/10',
  'ff00::/8',
];

function blockList(networks: readonly Network[]): BlockList {
  const list = new BlockList();
  for (const { address, prefix, family } of networks) list.addSubnet(address, prefix, family);
  return list;
}

const cidr = (text: string): Network => parseNetworks(text)[0]!;

/** The eight 16-bit groups of a valid IPv6 address (without zone). */
function ipv6Groups(address: string): number[] {
  const text = address.replace(
    /(\d+)\.(\d+)\.(\d+)\.(\d+)$/,
    (_, a: string, b: string, c: string, d: string) =>
      `${((Number(a) << 8) | Number(b)).toString(16)}:${((Number(c) << 8) | Number(d)).toString(16)}`,
  );
  const [head = '', tail] = text.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16)));
  const front = groups(head);
  const back = tail === undefined ? [] : groups(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

/** The IPv4 address an IPv6 one stands for: IPv4-mapped, NAT64 well-known prefix, or 6to4. */
function embeddedIPv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  const dotted = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  const zeros = (from: number, to: number) => g.slice(from, to).every((group) => group === 0);
  if (zeros(0, 5) && g[5] === 0xffff) return dotted(g[6]!, g[7]!);
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return dotted(g[6]!, g[7]!);
  if (g[0] === 0x2002) return dotted(g[1]!, g[2]!);
  return undefined;
}

export interface DestinationPolicy {
  /**
   * Resolves the host and checks every address it resolves to: the addresses to connect to, or why the
   * destination is refused. A resolution failure rejects.
   */
  check(hostname: string): Promise<{ addresses: ResolvedAddress[] } | { refused: string }>;
  /** Why an IP-literal host is refused; undefined for an allowed literal or a host name (checked when sending). */
  refusalOfLiteral(hostname: string): string | undefined;
}

/**
 * Webhooks go to public addresses only, unless an address falls in one of `allowedNetworks`. Checking the
 * resolved addresses (not the name) is what stops a name that points inward; connecting to the address
 * that was checked (`pinnedLookup`) is what stops a second DNS answer from changing it afterwards.
 */
export function createDestinationPolicy(
  options: {
    allowedNetworks?: readonly Network[];
    resolve?: Resolver;
    /** How long one resolution serves further deliveries to the same host, ms. */
    cacheMs?: number;
  } = {},
): DestinationPolicy {
  const allowed = blockList(options.allowedNetworks ?? []);
  const nonPublic4 = blockList(NON_PUBLIC_IPV4.map(cidr));
  const nonPublic6 = blockList(NON_PUBLIC_IPV6.map(cidr));
  const resolve = cachedResolver(options.resolve ?? systemResolver, options.cacheMs ?? RESOLUTION_CACHE_MS);

  // The networks never change, so an address's verdict is kept: every delivery to a host asks about its addresses.
  const verdicts = new Map<string, boolean>();
  function permitted(address: string): boolean {
    let verdict = verdicts.get(address);
    if (verdict === undefined) {
      verdict = permittedNow(address);
      setBounded(verdicts, address, verdict, MAX_KEPT_VERDICTS);
    }
    return verdict;
  }

  function permittedNow(address: string): boolean {
    const bare = address.replace(/%.*$/, '');
    if (isIP(bare) === 4) return allowed.check(bare, 'ipv4') || !nonPublic4.check(bare, 'ipv4');
    if (allowed.check(bare, 'ipv6')) return true;
    const inner = embeddedIPv4(bare);
    if (inner !== undefined && allowed.check(inner, 'ipv4')) return true;
    if (inner !== undefined && nonPublic4.check(inner, 'ipv4')) return false;
    return !nonPublic6.check(bare, 'ipv6');
  }

  const refusal = (address: string, hostname: string) => {
    const named = address === hostname ? address : `${hostname} (${address})`;
    return `destination ${named} is not a public address; list its network in ${ALLOWED_NETWORKS_VARIABLE} to allow it`;
  };

  return {
    async check(hostname) {
      const host = unbracket(hostname);
      const addresses: ResolvedAddress[] = isIP(host)
        ? [{ address: host, family: isIP(host) === 6 ? 6 : 4 }]
        : await resolve(host);
      if (addresses.length === 0) throw new Error(`${host} resolved to no address`);
      const refused = addresses.find((candidate) => !permitted(candidate.address));
      return refused ? { refused: refusal(refused.address, host) } : { addresses };
    },
    refusalOfLiteral(hostname) {
      const host = unbracket(hostname);
      return isIP(host) && !permitted(host) ? refusal(host, host) : undefined;
    },
  };
}

const RESOLUTION_CACHE_MS = 1000;
const MAX_KEPT_VERDICTS = 1000;
const MAX_CACHED_HOSTS = 1000;

/**
 * getaddrinfo runs on libuv's small thread pool, so a burst of deliveries to one host shares one lookup,
 * and its answer for a moment. Safe against rebinding: whatever answer is used is checked before use, and
 * the connection goes only to it. Failures are not kept.
 */
function cachedResolver(resolve: Resolver, cacheMs: number): Resolver {
  if (cacheMs === 0) return resolve;
  const answers = new Map<string, { until: number; addresses: Promise<ResolvedAddress[]> }>();
  return (hostname) => {
    const now = performance.now();
    const cached = answers.get(hostname);
    if (cached && cached.until > now) return cached.addresses;
    const addresses = resolve(hostname);
    answers.delete(hostname);
    answers.set(hostname, { until: now + cacheMs, addresses });
    addresses.catch(() => {
      if (answers.get(hostname)?.addresses === addresses) answers.delete(hostname);
    });
    // Insertion order is age order: drop the oldest beyond the bound.
    for (const name of answers.keys()) {
      if (answers.size <= MAX_CACHED_HOSTS) break;
      answers.delete(name);
    }
    return addresses;
  };
}

/** `URL.hostname` keeps the brackets of an IPv6 literal. */
function unbracket(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/**
 * A `lookup` for http(s).request that answers only the checked addresses, whatever DNS says by now. All of
 * them when asked for all, so that Node can still fall back from one family to the other.
 */
export function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const wanted =
      options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
    const [first] = wanted;
    if (!first)
      callback(Object.assign(new Error('no checked address of the requested family'), { code: 'ENOTFOUND' }), []);
    else if (options.all)
      callback(
        null,
        wanted.map(({ address, family }) => ({ address, family })),
      );
    else callback(null, first.address, first.family);
  };
}
