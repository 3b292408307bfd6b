/**
 * Where webhooks may be sent (events.md): `https://` to a host that is not, and does not resolve
 * to, a loopback, private, link-local, multicast, cloud-metadata or otherwise special address.
 * Checked when an endpoint is created or updated, and again at each delivery, where the
 * connection goes to the very address that was checked (no second lookup, so DNS rebinding
 * cannot slip between check and connect).
 *
 * The local stack also accepts `http://127.0.0.1:<port>/…` and `http://localhost:<port>/…`, and
 * nothing else of those ranges.
 */
import { BlockList, isIP } from 'node:net';
import { lookup } from 'node:dns/promises';

/** Every range no webhook may reach (IANA special-purpose registries, v4 and v6). */
const FORBIDDEN = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, with the EC2/ECS metadata endpoints
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments (incl. 192.0.0.192, Oracle Cloud metadata)
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and broadcast
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 96], // unspecified, loopback, and IPv4-compatible addresses (deprecated: ::127.0.0.1 is ::7f00:1)
  ['::ffff:0:0:0', 96], // IPv4-translated addresses (RFC 2765)
  ['64:ff9b::', 96], // NAT64 (embeds an IPv4 address)
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4 (embeds an IPv4 address)
  ['3fff::', 20], // documentation (RFC 9637)
  ['5f00::', 16], // segment routing (SRv6) SIDs (RFC 9602)
  ['fc00::', 7], // unique local (includes fd00:ec2::254, the EC2 IPv6 metadata endpoint)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv6');
}

/**
 * The eight 16-bit groups of an IPv6 address (`::ffff:1.2.3.4` and `fe80::1%eth0` included), or
 * undefined when it is not one. The checks decide on these numbers, never on the text: the URL
 * parser and resolvers write one address many ways (`::127.0.0.1` is `::7f00:1`).
 */
export function ipv6Groups(address: string): number[] | undefined {
  const bare = address.replace(/%.*$/, '');
  if (isIP(bare) !== 6) return undefined;
  let text = bare;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const high = parse(head);
  const low = parse(tail);
  return [...high, ...new Array<number>(8 - high.length - low.length).fill(0), ...low];
}

/** The IPv4 address of an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, ::ffff:0:0/96), if it is one. */
function mappedIpv4(groups: number[]): string | undefined {
  if (groups.slice(0, 5).some((group) => group !== 0) || groups[5] !== 0xffff) return undefined;
  const [high, low] = [groups[6]!, groups[7]!];
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** True when a webhook may not be sent to this IP address. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address.replace(/%.*$/, ''));
  if (family === 0) return true; // not an address at all
  if (family === 4) return FORBIDDEN.check(address, 'ipv4');
  const groups = ipv6Groups(address)!;
  // A mapped address is its IPv4 address; every other form that embeds one (IPv4-compatible
  // ::/96, IPv4-translated ::ffff:0:0:0/96, NAT64, 6to4) is refused whole by FORBIDDEN.
  const v4 = mappedIpv4(groups);
  if (v4 !== undefined) return FORBIDDEN.check(v4, 'ipv4');
  const canonical = groups.map((group) => group.toString(16)).join(':');
  return FORBIDDEN.check(canonical, 'ipv6');
}

export interface UrlPolicy {
  /** The local stack: `http://127.0.0.1:<port>/` and `http://localhost:<port>/` are allowed. */
  allowLoopback: boolean;
}

/** Loopback names the local stack accepts, with an explicit port. */
const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost']);
/** The text names a port: `http://localhost:80/` does, though the URL parser drops the default port from `url.port`. */
const NAMED_PORT = /^http:\/\/[^/?#]*:\d+(?:[/?#]|$)/i;

export const MAX_URL_LENGTH = 2048;

export type UrlVerdict = { ok: true; url: URL; loopback: boolean } | { ok: false; reason: string };

/** Checks what the URL says, before any DNS: scheme, credentials, port, literal addresses. */
export function checkUrlSyntax(raw: string, policy: UrlPolicy): UrlVerdict {
  // In code points, as every length (contract): an emoji is one character.
  if ([...raw].length > MAX_URL_LENGTH) return { ok: false, reason: `url must be at most ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'url must be an absolute https:// URL' };
  }
  if (url.username || url.password) return { ok: false, reason: 'url must not hold credentials' };
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (policy.allowLoopback && LOCAL_HOSTS.has(host) && url.protocol === 'http:' && (url.port !== '' || NAMED_PORT.test(raw))) {
    return { ok: true, url, loopback: true };
  }
  if (url.protocol !== 'https:') {
    return { ok: false, reason: policy.allowLoopback ? 'url must be https://, or http://127.0.0.1:<port>/ or http://localhost:<port>/ on the local stack' : 'url must be https://' };
  }
  if (isIP(host) !== 0 && isForbiddenAddress(host)) return { ok: false, reason: refusal(host) };
  if (host === 'localhost' || host.endsWith('.localhost') || host === 'metadata.google.internal') return { ok: false, reason: refusal(host) };
  if (isIP(host) === 0 && !host.includes('.')) return { ok: false, reason: 'url must name a public host (a fully qualified domain name)' };
  return { ok: true, url, loopback: false };
}

const refusal = (what: string) =>
  `url must not point to ${what}, a loopback, private, link-local, multicast or cloud-metadata address`;

export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

/** A lookup that has not answered by then fails the check (a slow resolver must not hold a request). */
export const DNS_TIMEOUT_MS = 3000;

const systemResolver: Resolver = (hostname) => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('DNS timeout')), DNS_TIMEOUT_MS);
  });
  return Promise.race([lookup(hostname, { all: true, verbatim: true }), timeout]).finally(() => clearTimeout(timer));
};

export type AddressVerdict = { ok: true; address: string; family: 4 | 6 } | { ok: false; reason: string };

/**
 * Resolves the URL's host and checks every address it resolves to (all of them: a client could
 * pick any). Returns the address to connect to. A loopback URL (local stack only) needs no check.
 */
export async function resolveTarget(verdict: Extract<UrlVerdict, { ok: true }>, resolver: Resolver = systemResolver): Promise<AddressVerdict> {
  const host = verdict.url.hostname.replace(/^\[|\]$/g, '');
  if (verdict.loopback) return host === 'localhost' ? { ok: true, address: '127.0.0.1', family: 4 } : { ok: true, address: host, family: 4 };
  const literal = isIP(host);
  if (literal !== 0) return isForbiddenAddress(host) ? { ok: false, reason: refusal(host) } : { ok: true, address: host, family: literal as 4 | 6 };
  let addresses: { address: string; family: number }[];
  try {
    addresses = await resolver(host);
  } catch {
    return { ok: false, reason: `the host of url (${host}) does not resolve` };
  }
  if (addresses.length === 0) return { ok: false, reason: `the host of url (${host}) does not resolve` };
  const bad = addresses.find((a) => isForbiddenAddress(a.address));
  if (bad) return { ok: false, reason: refusal(`${host} (${bad.address})`) };
  const first = addresses[0]!;
  return { ok: true, address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** The whole check of an endpoint's URL: syntax, then DNS. */
export async function checkWebhookUrl(raw: string, policy: UrlPolicy, resolver?: Resolver): Promise<{ ok: true; url: URL; address: string; family: 4 | 6 } | { ok: false; reason: string }> {
  const syntax = checkUrlSyntax(raw, policy);
  if (!syntax.ok) return syntax;
  const target = await resolveTarget(syntax, resolver);
  if (!target.ok) return target;
  return { ok: true, url: syntax.url, address: target.address, family: target.family };
}

/**
 * The policy of this process: loopback URLs only where the local stack says so
 * (WEBHOOK_ALLOW_LOOPBACK=true, set by infra/local/stack.ts; the CDK stack never sets it).
 */
export const urlPolicy = (): UrlPolicy => ({ allowLoopback: process.env.WEBHOOK_ALLOW_LOOPBACK === 'true' });
