import dns from 'node:dns';
import net from 'node:net';

/**
 * Server-side request forgery guard for partner callback URLs.
 *
 * Two checks, both needed:
 * - at registration: `checkCallbackUrl` (shape, scheme, IP literals) and `resolveAllowed` (every
 *   address the name resolves to must be public);
 * - at connect time: pass `guardedLookup(...)` as the `lookup` option of `http(s).request`. The
 *   socket dials only the address that lookup returns, and the lookup refuses a non-public one,
 *   so a DNS change after registration (or DNS rebinding) cannot reach an internal address.
 *
 * Node does not call `lookup` when the host is an IP literal, so run `checkCallbackUrl` again at
 * delivery time as well (it refuses non-public IP literals), and never follow redirects.
 */

export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'multicast'
  | 'metadata'
  | 'unspecified'
  | 'reserved'
  | 'cgnat'
  | 'documentation';

type Rule = { prefix: string; bits: number; cls: Exclude<AddressClass, 'public'> };

// First match wins, so narrower ranges come before the ranges that contain them.
const IPV4_RULES: Rule[] = [
  { prefix: '169.254.169.254', bits: 32, cls: 'metadata' },
  { prefix: '0.0.0.0', bits: 8, cls: 'unspecified' },
  { prefix: '127.0.0.0', bits: 8, cls: 'loopback' },
  { prefix: '10.0.0.0', bits: 8, cls: 'private' },
  { prefix: '172.16.0.0', bits: 12, cls: 'private' },
  { prefix: '192.168.0.0', bits: 16, cls: 'private' },
  { prefix: '169.254.0.0', bits: 16, cls: 'link-local' },
  { prefix: '100.64.0.0', bits: 10, cls: 'cgnat' },
  { prefix: '192.0.2.0', bits: 24, cls: 'documentation' },
  { prefix: '198.51.100.0', bits: 24, cls: 'documentation' },
  { prefix: '203.0.113.0', bits: 24, cls: 'documentation' },
  { prefix: '224.0.0.0', bits: 4, cls: 'multicast' },
  { prefix: '240.0.0.0', bits: 4, cls: 'reserved' }, // includes 255.255.255.255
  { prefix: '198.18.0.0', bits: 15, cls: 'reserved' }, // benchmarking
  { prefix: '192.0.0.0', bits: 24, cls: 'reserved' }, // IETF protocol assignments
  { prefix: '192.88.99.0', bits: 24, cls: 'reserved' }, // deprecated 6to4 relay anycast
];

// IPv6 after IPv4-mapped (::ffff:0:0/96) and NAT64 (64:ff9b::/96) forms were unwrapped.
const IPV6_RULES: Rule[] = [
  { prefix: '::', bits: 128, cls: 'unspecified' },
  { prefix: '::1', bits: 128, cls: 'loopback' },
  { prefix: 'fd00:ec2::254', bits: 128, cls: 'metadata' },
  { prefix: '::', bits: 96, cls: 'reserved' }, // deprecated IPv4-compatible addresses
  { prefix: '64:ff9b:1::', bits: 48, cls: 'reserved' }, // local-use NAT64
  { prefix: '100::', bits: 64, cls: 'reserved' }, // discard-only
  { prefix: '2001::', bits: 23, cls: 'reserved' }, // IETF protocol assignments, includes Teredo 2001::/32
  { prefix: '2001:db8::', bits: 32, cls: 'documentation' },
  { prefix: '3fff::', bits: 20, cls: 'documentation' },
  { prefix: '2002::', bits: 16, cls: 'reserved' }, // 6to4
  { prefix: 'fc00::', bits: 7, cls: 'private' }, // unique local
  { prefix: 'fec0::', bits: 10, cls: 'private' }, // deprecated site-local
  { prefix: 'fe80::', bits: 10, cls: 'link-local' },
  { prefix: 'ff00::', bits: 8, cls: 'multicast' },
];

function compile(rules: Rule[], type: 'ipv4' | 'ipv6') {
  return rules.map((rule) => {
    const list = new net.BlockList();
    list.addSubnet(rule.prefix, rule.bits, type);
    return { list, cls: rule.cls };
  });
}

const IPV4_LISTS = compile(IPV4_RULES, 'ipv4');
const IPV6_LISTS = compile(IPV6_RULES, 'ipv6');
const GLOBAL_UNICAST = new net.BlockList();
GLOBAL_UNICAST.addSubnet('2000::', 3, 'ipv6');

/** The eight 16-bit groups of a valid IPv6 address (zone id already removed). */
function ipv6Groups(ip: string): number[] {
  let text = ip;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  const last = text.slice(lastColon + 1);
  if (last.includes('.')) {
    const [a = 0, b = 0, c = 0, d = 0] = last.split('.').map(Number);
    tail.push((a << 8) | b, (c << 8) | d);
    text = `${text.slice(0, lastColon + 1)}0`; // placeholder group, dropped below
  }
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const [head = '', rest] = text.split('::');
  let groups: number[];
  if (rest === undefined) {
    groups = parse(head);
  } else {
    const left = parse(head);
    const right = parse(rest);
    const missing = 8 - left.length - right.length - (tail.length > 0 ? 1 : 0);
    groups = [...left, ...new Array<number>(missing).fill(0), ...right];
  }
  if (tail.length > 0) groups = [...groups.slice(0, -1), ...tail];
  return groups;
}

function hex(n: number): string {
  return n.toString(16);
}

function classifyIPv4(ip: string): AddressClass {
  for (const { list, cls } of IPV4_LISTS) if (list.check(ip, 'ipv4')) return cls;
  return 'public';
}

/**
 * Classify an IPv4 or IPv6 address. IPv4-mapped IPv6 (`::ffff:127.0.0.1`, `::ffff:7f00:1`) and
 * NAT64 (`64:ff9b::/96`) addresses are classified as the IPv4 address inside; 6to4 and Teredo are
 * `reserved`, as is any IPv6 address outside global unicast 2000::/3 not listed otherwise.
 * Throws a `TypeError` when `ip` is not an IP address.
 */
export function classifyAddress(ip: string): AddressClass {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const version = net.isIP(bare);
  if (version === 4) return classifyIPv4(bare);
  if (version !== 6) throw new TypeError(`not an IP address: ${ip}`);

  const groups = ipv6Groups(bare.split('%')[0]!.toLowerCase());
  const [g0, g1, g2, g3, g4, g5, g6 = 0, g7 = 0] = groups;
  const embeddedV4 = `${g6 >> 8}.${g6 & 0xff}.${g7 >> 8}.${g7 & 0xff}`;
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff) {
    return classifyIPv4(embeddedV4);
  }
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return classifyIPv4(embeddedV4);
  }
  const canonical = groups.map(hex).join(':');
  for (const { list, cls } of IPV6_LISTS) if (list.check(canonical, 'ipv6')) return cls;
  if (!GLOBAL_UNICAST.check(canonical, 'ipv6')) return 'reserved';
  return 'public';
}

export interface GuardOptions {
  /** `WEBHOOK_ALLOW_INSECURE`: allow `http://` and non-public targets (development and tests only). */
  allowInsecure: boolean;
}

export type CheckedUrl = { ok: true; url: URL } | { ok: false; reason: string };

function describe(cls: AddressClass): string {
  return cls === 'cgnat' ? 'carrier-grade NAT' : cls;
}

/** Shape check of a callback URL (no DNS). Run at registration and again before each delivery. */
export function checkCallbackUrl(url: string, { allowInsecure }: GuardOptions): CheckedUrl {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'The callback URL is not a valid absolute URL.' };
  }
  const schemes = allowInsecure ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(parsed.protocol)) {
    return { ok: false, reason: `The callback URL must use https:// (got ${parsed.protocol}//).` };
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return {
      ok: false,
      reason: 'The callback URL must not contain a user name or password; register an API key instead.',
    };
  }
  const host = parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname;
  if (host === '') return { ok: false, reason: 'The callback URL has no host name.' };
  if (!allowInsecure) {
    if (net.isIP(host) !== 0) {
      const cls = classifyAddress(host);
      if (cls !== 'public') {
        return {
          ok: false,
          reason: `The callback URL points at ${host}, a ${describe(cls)} address; only public addresses are allowed.`,
        };
      }
    } else {
      const name = host.toLowerCase().replace(/\.$/, '');
      if (name === 'localhost' || name.endsWith('.localhost')) {
        return {
          ok: false,
          reason: `The callback URL points at ${host}, which is always a loopback address.`,
        };
      }
    }
  }
  return { ok: true, url: parsed };
}

/** Address classes of a machine the partner sits at or beside: where `healthspan listen` helps. */
const NEARBY: ReadonlySet<AddressClass> = new Set(['loopback', 'private', 'link-local', 'unspecified']);

/**
 * Whether `url` names this machine or one on a private network (`localhost`, `127.0.0.1`,
 * `10.…`, or a name resolving to such an address): a receiver that `healthspan listen` can reach
 * and a callback cannot.
 */
export function isNearbyTarget(url: string, resolved: readonly ClassifiedAddress[] = []): boolean {
  let host: string;
  try {
    host = stripBrackets(new URL(url).hostname).toLowerCase().replace(/\.$/, '');
  } catch {
    return false;
  }
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (net.isIP(host) !== 0 && NEARBY.has(classifyAddress(host))) return true;
  return resolved.some((a) => NEARBY.has(a.classification));
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to all of its addresses. Injectable for tests. */
export type Resolver = (hostname: string, options: { family?: number }) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname, options) => {
  const results = await dns.promises.lookup(hostname, {
    all: true,
    verbatim: true,
    family: options.family ?? 0,
  });
  return results.map((r) => ({ address: r.address, family: r.family }));
};

export type ClassifiedAddress = ResolvedAddress & { classification: AddressClass };

export type ResolveResult =
  | { ok: true; addresses: ClassifiedAddress[] }
  | { ok: false; reason: string; addresses: ClassifiedAddress[] };

function stripBrackets(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/**
 * Registration-time check: resolve `hostname` (all addresses) and refuse when any of them is not
 * public, unless `allowInsecure`. A name that does not resolve is refused in both modes.
 */
export async function resolveAllowed(
  hostname: string,
  { allowInsecure, lookup = systemResolver }: GuardOptions & { lookup?: Resolver },
): Promise<ResolveResult> {
  const host = stripBrackets(hostname);
  let resolved: ResolvedAddress[];
  try {
    resolved = await lookup(host, {});
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    return { ok: false, reason: `The callback host ${host} could not be resolved (${code}).`, addresses: [] };
  }
  const addresses = resolved.map((r) => ({ ...r, classification: classifyAddress(r.address) }));
  if (addresses.length === 0) {
    return { ok: false, reason: `The callback host ${host} has no addresses.`, addresses };
  }
  const blocked = addresses.find((a) => a.classification !== 'public');
  if (blocked && !allowInsecure) {
    return {
      ok: false,
      reason: `The callback host ${host} resolves to ${blocked.address}, a ${describe(blocked.classification)} address; only public addresses are allowed.`,
      addresses,
    };
  }
  return { ok: true, addresses };
}

/** Raised (through the request's `error` event) when the address about to be dialled is not public. */
export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';
  constructor(
    readonly hostname: string,
    readonly address: string,
    readonly classification: AddressClass,
  ) {
    super(
      `Refusing to connect to ${hostname} at ${address}: it is a ${describe(classification)} address, and callbacks may only go to public addresses.`,
    );
    this.name = 'BlockedAddressError';
  }
}

function familyNumber(family: dns.LookupOptions['family']): number {
  if (family === 'IPv4') return 4;
  if (family === 'IPv6') return 6;
  return family ?? 0;
}

/**
 * Connect-time check: a `net.LookupFunction` for `http.request({ lookup })` / `https.request`.
 * It resolves the name and fails with a `BlockedAddressError` (`code: 'EBLOCKEDADDRESS'`) when an
 * address it would hand to the socket is not public (with `all: true`, when any is), unless
 * `allowInsecure`. `resolve` is injectable for tests.
 */
export function guardedLookup({
  allowInsecure,
  resolve = systemResolver,
}: GuardOptions & { resolve?: Resolver }): net.LookupFunction {
  return (hostname, options, callback) => {
    const family = familyNumber(options.family);
    const attempt = async (): Promise<ResolvedAddress[]> => {
      const resolved = (await resolve(hostname, { family })).filter(
        (r) => family === 0 || r.family === family,
      );
      if (resolved.length === 0) {
        const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
        err.code = 'ENOTFOUND';
        throw err;
      }
      const candidates = options.all ? resolved : resolved.slice(0, 1);
      if (!allowInsecure) {
        for (const candidate of candidates) {
          const cls = classifyAddress(candidate.address);
          if (cls !== 'public') throw new BlockedAddressError(hostname, candidate.address, cls);
        }
      }
      return candidates;
    };
    attempt().then(
      (candidates) =>
        process.nextTick(() => {
          if (options.all) callback(null, candidates);
          else callback(null, candidates[0]!.address, candidates[0]!.family);
        }),
      (err: NodeJS.ErrnoException) => process.nextTick(() => callback(err, options.all ? [] : '')),
    );
  };
}
