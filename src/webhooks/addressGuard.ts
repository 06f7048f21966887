// Webhooks are requests the service makes on a client's behalf, to a URL the client chose: by
// default none may reach this machine, its private network or a cloud's metadata service (SSRF).
// Checked where the connection is made (a DNS answer may change after registration: a rebinding
// name passes a check at registration and then points inside), and at registration for a clear
// early refusal. `flipbook serve --webhook-allow-private` lifts it (tests, private networks).
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * The IANA IPv4 Special-Purpose Address Registry (RFC 6890 and its updates), every entry, even
 * those marked globally reachable (anycast relays, AS112 sinks: no webhook receiver lives there),
 * and multicast. Nested entries are listed as the registry lists them.
 */
export const SPECIAL_IPV4: readonly (readonly [prefix: string, name: string])[] = [
  ['0.0.0.0/8', '"This network"'],
  ['0.0.0.0/32', '"This host on this network"'],
  ['10.0.0.0/8', 'Private-Use'],
  ['100.64.0.0/10', 'Shared Address Space (carrier-grade NAT)'],
  ['127.0.0.0/8', 'Loopback'],
  ['169.254.0.0/16', 'Link Local (cloud metadata at 169.254.169.254)'],
  ['172.16.0.0/12', 'Private-Use'],
  ['192.0.0.0/24', 'IETF Protocol Assignments'],
  ['192.0.0.0/29', 'IPv4 Service Continuity Prefix'],
  ['192.0.0.8/32', 'IPv4 dummy address'],
  ['192.0.0.9/32', 'Port Control Protocol Anycast'],
  ['192.0.0.10/32', 'Traversal Using Relays around NAT Anycast'],
  ['192.0.0.170/32', 'NAT64/DNS64 Discovery'],
  ['192.0.0.171/32', 'NAT64/DNS64 Discovery'],
  ['192.0.2.0/24', 'Documentation (TEST-NET-1)'],
  ['192.31.196.0/24', 'AS112-v4'],
  ['192.52.193.0/24', 'AMT'],
  ['192.88.99.0/24', 'Deprecated (6to4 Relay Anycast)'],
  ['192.168.0.0/16', 'Private-Use'],
  ['192.175.48.0/24', 'Direct Delegation AS112 Service'],
  ['198.18.0.0/15', 'Benchmarking'],
  ['198.51.100.0/24', 'Documentation (TEST-NET-2)'],
  ['203.0.113.0/24', 'Documentation (TEST-NET-3)'],
  ['224.0.0.0/4', 'Multicast'],
  ['240.0.0.0/4', 'Reserved'],
  ['255.255.255.255/32', 'Limited Broadcast'],
];

/**
 * The IANA IPv6 Special-Purpose Address Registry, every entry, and the address architecture's
 * other non-global blocks (site-local, multicast). Only global unicast (2000::/3) can be a
 * receiver at all, so anything outside it is refused whether listed here or not (a block assigned
 * tomorrow outside 2000::/3 is refused today); the list matters inside 2000::/3, and says why.
 * IPv4-mapped (::ffff:0:0/96) and NAT64 (64:ff9b::/96) addresses are judged by the IPv4 address
 * they carry (isPrivateAddress).
 */
export const SPECIAL_IPV6: readonly (readonly [prefix: string, name: string])[] = [
  ['::1/128', 'Loopback'],
  ['::/128', 'Unspecified'],
  ['::/96', 'IPv4-compatible (deprecated)'],
  ['::ffff:0:0:0/96', 'IPv4-translated'],
  ['64:ff9b:1::/48', 'IPv4-IPv6 Translation, local use'],
  ['100::/64', 'Discard-Only'],
  ['100:0:0:1::/64', 'Dummy IPv6 Prefix'],
  ['2001::/23', 'IETF Protocol Assignments'],
  ['2001::/32', 'TEREDO'],
  ['2001:1::1/128', 'Port Control Protocol Anycast'],
  ['2001:1::2/128', 'Traversal Using Relays around NAT Anycast'],
  ['2001:1::3/128', 'DNS-SD Service Registration Protocol Anycast'],
  ['2001:2::/48', 'Benchmarking'],
  ['2001:3::/32', 'AMT'],
  ['2001:4:112::/48', 'AS112-v6'],
  ['2001:10::/28', 'Deprecated (previously ORCHID)'],
  ['2001:20::/28', 'ORCHIDv2'],
  ['2001:30::/28', 'Drone Remote ID Protocol Entity Tags'],
  ['2001:db8::/32', 'Documentation'],
  ['2002::/16', '6to4 (an IPv4 address inside)'],
  ['2620:4f:8000::/48', 'Direct Delegation AS112 Service'],
  ['3fff::/20', 'Documentation'],
  ['5f00::/16', 'Segment Routing (SRv6) SIDs'],
  ['fc00::/7', 'Unique-Local (AWS metadata at fd00:ec2::254)'],
  ['fe80::/10', 'Link-Local Unicast'],
  ['fec0::/10', 'Site-Local (deprecated)'],
  ['ff00::/8', 'Multicast'],
];

const blockListOf = (
  entries: readonly (readonly [string, string])[],
  family: 'ipv4' | 'ipv6',
): BlockList => {
  const list = new BlockList();
  for (const [cidr] of entries) {
    const [net, prefix] = cidr.split('/') as [string, string];
    list.addSubnet(net, Number(prefix), family);
  }
  return list;
};

const blocked4 = blockListOf(SPECIAL_IPV4, 'ipv4');
const blocked6 = blockListOf(SPECIAL_IPV6, 'ipv6');
const globalUnicast = blockListOf([['2000::/3', 'Global Unicast']], 'ipv6');

/** An IPv4 address written as IPv6 (::ffff:10.0.0.1, NAT64 64:ff9b::a00:1): its IPv4. */
const embeddedIpv4 = (address: string): string | null => {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1] as string;
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const n = (Number.parseInt(hex[1] as string, 16) << 16) | Number.parseInt(hex[2] as string, 16);
    return [24, 16, 8, 0].map((shift) => (n >>> shift) & 255).join('.');
  }
  return null;
};

/** Whether an IP address is loopback, private, link-local, metadata or otherwise not public. */
export const isPrivateAddress = (address: string): boolean => {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return blocked4.check(bare, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIpv4(bare);
    if (v4 !== null) return blocked4.check(v4, 'ipv4');
    return !globalUnicast.check(bare, 'ipv6') || blocked6.check(bare, 'ipv6');
  }
  return true; // not an address at all: refuse rather than guess
};

export class PrivateAddressRefused extends Error {
  override name = 'PrivateAddressRefused';
  readonly code = 'EPRIVATEADDRESS';
  constructor(host: string, address: string) {
    super(
      `${host} resolves to ${address}, a private or local address; webhooks reach public addresses only (flipbook serve --webhook-allow-private allows them)`,
    );
  }
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for net/tls connections (undici's `connect.lookup`): resolves as usual, then refuses
 * the connection if any address is private. Every address, not only the first: a name with one
 * public and one private address could otherwise be tried on the private one.
 */
export const guardedLookup = (
  hostname: string,
  options: { all?: boolean; family?: number | 'IPv4' | 'IPv6'; hints?: number },
  callback: LookupCallback,
) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const list = addresses as LookupAddress[];
    const bad = list.find((a) => isPrivateAddress(a.address));
    if (bad) return callback(new PrivateAddressRefused(hostname, bad.address), []);
    if (options.all) return callback(null, list);
    const first = list[0];
    if (!first)
      return callback(
        Object.assign(new Error(`${hostname}: no address`), { code: 'ENOTFOUND' }),
        [],
      );
    callback(null, first.address, first.family);
  });
};

/** A URL's host when it is written as an IP address (no lookup happens for those). */
export const literalAddress = (url: URL): string | null => {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return isIP(host) ? host : null;
};

/**
 * The refusal for a URL that reaches a private address now (at registration): a literal one, or
 * a name that resolves to one. Names that do not resolve yet are let through: the connection's
 * own check decides at each delivery.
 */
export const privateTarget = async (raw: string): Promise<string | null> => {
  const url = new URL(raw);
  const literal = literalAddress(url);
  if (literal !== null) {
    return isPrivateAddress(literal)
      ? new PrivateAddressRefused(url.hostname, literal).message
      : null;
  }
  return new Promise((resolve) => {
    dnsLookup(url.hostname, { all: true }, (error, addresses) => {
      if (error) return resolve(null);
      const bad = (addresses as LookupAddress[]).find((a) => isPrivateAddress(a.address));
      resolve(bad ? new PrivateAddressRefused(url.hostname, bad.address).message : null);
    });
  });
};
