import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';

// Which addresses the server may connect to on behalf of a user or a platform: globally reachable
// unicast addresses only, plus what the operator's allow-list names. Everything else is refused,
// because a request to it would reach this machine, its network or its cloud provider's metadata
// service rather than the internet:
//
// - IPv4: the IANA IPv4 Special-Purpose Address Registry
//   (https://www.iana.org/assignments/iana-ipv4-special-registry/iana-ipv4-special-registry.xhtml):
//   0.0.0.0/8 "this network", 10/8, 172.16/12, 192.168/16 (RFC 1918 private), 100.64/10 (RFC 6598
//   shared address space, carrier-grade NAT), 127/8 loopback, 169.254/16 link-local (RFC 3927; where
//   cloud instance metadata answers, https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/instancedata-data-retrieval.html),
//   192.0.0/24, documentation and benchmarking ranges, 224/4 multicast, 240/4 reserved and broadcast.
// - IPv6: only global unicast (2000::/3, RFC 4291 section 2.4,
//   https://www.rfc-editor.org/rfc/rfc4291#section-2.4) outside the IANA IPv6 Special-Purpose Address
//   Registry (https://www.iana.org/assignments/iana-ipv6-special-registry/iana-ipv6-special-registry.xhtml).
//   That refuses ::1 loopback, :: unspecified, fe80::/10 link-local, fc00::/7 unique local (RFC 4193,
//   https://www.rfc-editor.org/rfc/rfc4193), ff00::/8 multicast, and every form that carries an IPv4
//   address inside it (::ffff:0:0/96 IPv4-mapped, 64:ff9b::/96 NAT64, 2002::/16 6to4, 2001::/32
//   Teredo), since those can lead to any IPv4 address, private ones included.
//
// The address ranges come from ipaddr.js (`range()`), which names each special-purpose block.

export interface AllowEntry {
  /** A lower-case host name, or an IP address in its normalised form. */
  host: string;
  /** Only this port when set; any port when absent. */
  port?: number;
}

/** Why ipaddr.js's range of an address is refused, as a user reads it. */
const RANGE_WORDING: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address (169.254.0.0/16 or fe80::/10, where cloud metadata services answer)',
  loopback: 'a loopback address (this server itself)',
  carrierGradeNat: 'a carrier-grade NAT address (100.64.0.0/10)',
  private: 'a private network address',
  reserved: 'a reserved address',
  uniqueLocal: 'a unique local IPv6 address (fc00::/7, a private network)',
  ipv4Mapped: 'an IPv4-mapped IPv6 address (::ffff:0:0/96)',
  rfc6145: 'an IPv4-translated IPv6 address',
  rfc6052: 'a NAT64 address (it carries an IPv4 address)',
  '6to4': 'a 6to4 address (it carries an IPv4 address)',
  teredo: 'a Teredo address (it carries an IPv4 address)',
  deprecatedSiteLocal: 'a site-local IPv6 address (a private network)',
};

/** "[::1]" -> "::1"; other strings unchanged. */
export function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** An IP address in one spelling (IPv6 compressed, lower case), or null when `text` is not an IP address. */
export function normalizedAddress(text: string): string | null {
  const bare = unbracket(text);
  if (isIP(bare) === 0) return null;
  return ipaddr.parse(bare).toString();
}

/**
 * Null when `address` (an IP address) is globally reachable; else what it is ("a loopback address
 * (this server itself)"), for the refusal's message.
 */
export function nonPublicReason(address: string): string | null {
  const bare = unbracket(address);
  if (isIP(bare) === 0) return 'not an IP address';
  const parsed = ipaddr.parse(bare);
  const range = parsed.range();
  if (parsed.kind() === 'ipv6' && range === 'unicast' && !parsed.match(ipaddr.parseCIDR('2000::/3'))) return 'not a global unicast IPv6 address';
  if (range === 'unicast') return null;
  return RANGE_WORDING[range] ?? 'a special-purpose address';
}

/** "localhost" and names under it are this machine by definition (RFC 6761 section 6.3, https://www.rfc-editor.org/rfc/rfc6761#section-6.3). */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * OUTBOUND_ALLOW_HOSTS: comma-separated `host` or `host:port` entries ("127.0.0.1:4611",
 * "[::1]:8080", "woo.internal"), IPv6 addresses in brackets. Throws on an entry that is not one.
 */
export function parseAllowList(text: string | undefined): AllowEntry[] {
  const entries: AllowEntry[] = [];
  for (const raw of (text ?? '').split(',')) {
    const item = raw.trim();
    if (!item) continue;
    let parsed: URL;
    try {
      parsed = new URL(`http://${item}`);
    } catch {
      throw new Error(`OUTBOUND_ALLOW_HOSTS: "${item}" is not a host or host:port`);
    }
    if (parsed.pathname !== '/' || parsed.search || parsed.hash || parsed.username || parsed.password || /[/?#@]/.test(item)) {
      throw new Error(`OUTBOUND_ALLOW_HOSTS: "${item}" is not a host or host:port (no scheme, path or credentials)`);
    }
    // The URL parser normalises the host (lower case; "127.1" -> "127.0.0.1"), as every request's URL is.
    const host = normalizedAddress(parsed.hostname) ?? parsed.hostname;
    const portText = /:(\d+)$/.exec(item.replace(/^\[[^\]]*\]/, ''))?.[1];
    const port = portText === undefined ? undefined : Number(portText);
    if (port !== undefined && (port < 1 || port > 65535)) throw new Error(`OUTBOUND_ALLOW_HOSTS: "${item}" has an invalid port`);
    entries.push(port === undefined ? { host } : { host, port });
  }
  return entries;
}

/** "127.0.0.1:4611, woo.internal" as OUTBOUND_ALLOW_HOSTS writes it. */
export function formatAllowList(entries: readonly AllowEntry[]): string {
  return entries.map((entry) => `${entry.host.includes(':') ? `[${entry.host}]` : entry.host}${entry.port ? `:${entry.port}` : ''}`).join(', ');
}

/** Whether an entry names this connection: by the URL's host name or by the address connected to, and its port. */
export function isAllowListed(entries: readonly AllowEntry[], target: { hostname: string; address: string; port: number }): boolean {
  const hostname = normalizedAddress(target.hostname) ?? target.hostname.toLowerCase();
  const address = normalizedAddress(target.address) ?? target.address;
  return entries.some((entry) => (entry.host === hostname || entry.host === address) && (entry.port === undefined || entry.port === target.port));
}
