// Webhooks are requests the service makes on a client's behalf, to a URL the client chose: by
// default none may reach this machine, its private network or a cloud's metadata service (SSRF).
// Checked where the connection is made (a DNS answer may change after registration: a rebinding
// name passes a check at registration and then points inside), and at registration for a clear
// early refusal. `flipbook serve --webhook-allow-private` lifts it (tests, private networks).
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24], // 6to4 relays
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  // IPv4-compatible (::a.b.c.d, deprecated) and IPv4-translated (::ffff:0:a.b.c.d): any IPv4
  // behind them, private ones included, so none of it. (::ffff:a.b.c.d is decoded instead.)
  ['::', 96],
  ['::ffff:0:0:0', 96],
  ['64:ff9b:1::', 48], // local-use NAT64
  ['2002::', 16], // 6to4: an IPv4 inside
  ['2001::', 32], // Teredo
  ['fc00::', 7], // unique local (AWS's fd00:ec2::254 metadata included)
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
  ['2001:db8::', 32], // documentation
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** An IPv4 address written as IPv6 (::ffff:10.0.0.1, ::10.0.0.1, NAT64 64:ff9b::a00:1): its IPv4. */
const embeddedIpv4 = (address: string): string | null => {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
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
  if (family === 4) return blocked.check(bare, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIpv4(bare);
    if (v4 !== null) return blocked.check(v4, 'ipv4');
    return blocked.check(bare, 'ipv6');
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
