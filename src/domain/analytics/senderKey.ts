// Whose beacons a rate limit counts together (src/reader/beaconRoute.ts).

/**
 * Who a beacon's limit counts against: an IPv4 address, or an IPv6 address's /64 (one
 * subscriber's network: a sender rotating addresses within it is still one sender).
 */
export const senderKey = (address: string) => {
  const plain = address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
  if (!plain.includes(':')) return plain;
  const [head = '', tail = ''] = plain.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = plain.includes('::')
    ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g || '0', 16).toString(16))
    .join(':')}::/64`;
};
