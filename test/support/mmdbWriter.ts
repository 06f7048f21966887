// A small writer of MaxMind DB files (the format GeoLite2 and DB-IP ship, spec:
// https://maxmind.github.io/MaxMind-DB/), for tests: an IPv4 database mapping a few networks to a
// country, read by the service with the real `maxmind` reader. No such database can be shipped
// with the tests (their licences ask for attribution and updates), and no writer is on npm.

/** A data field's control byte(s): type and size (spec, "Data Section"). */
const control = (type: number, size: number): Buffer => {
  if (size >= 29) throw new Error('sizes of 29 and more are not written here');
  return type <= 7 ? Buffer.from([(type << 5) | size]) : Buffer.from([size, type - 7]); // an extended type
};

const unsigned = (type: number, value: number | bigint) => {
  let n = BigInt(value);
  const bytes: number[] = [];
  while (n > 0n) {
    bytes.unshift(Number(n & 0xffn));
    n >>= 8n;
  }
  return Buffer.concat([control(type, bytes.length), Buffer.from(bytes)]);
};

type Value = string | number | bigint | Value[] | { [key: string]: Value } | { uint16: number };

const encode = (value: Value): Buffer => {
  if (typeof value === 'string') {
    const text = Buffer.from(value, 'utf8');
    return Buffer.concat([control(2, text.length), text]);
  }
  if (typeof value === 'bigint') return unsigned(9, value); // uint64
  if (typeof value === 'number') return unsigned(6, value); // uint32
  if (Array.isArray(value)) return Buffer.concat([control(11, value.length), ...value.map(encode)]);
  if ('uint16' in value && typeof value.uint16 === 'number') return unsigned(5, value.uint16);
  const entries = Object.entries(value as Record<string, Value>);
  return Buffer.concat([
    control(7, entries.length),
    ...entries.flatMap(([k, v]) => [encode(k), encode(v)]),
  ]);
};

/** An IPv4 MaxMind DB (24-bit records) where each CIDR network names a country's ISO code. */
export const countryDatabase = (networks: Record<string, string>): Buffer => {
  // The search tree: node i has two records (bit 0, bit 1): another node, or data, or nothing.
  type Record = { node: number } | { data: number } | null;
  const nodes: [Record, Record][] = [[null, null]];
  const data: Buffer[] = [];
  let dataSize = 0;
  for (const [cidr, iso] of Object.entries(networks)) {
    const [address = '', bits = '32'] = cidr.split('/');
    const prefix = Number(bits);
    const ip = address.split('.').reduce((n, part) => n * 256 + Number(part), 0);
    const record = encode({ country: { iso_code: iso } });
    const offset = dataSize;
    data.push(record);
    dataSize += record.length;
    let at = 0;
    for (let depth = 0; depth < prefix; depth++) {
      const bit = Math.floor(ip / 2 ** (31 - depth)) % 2;
      const node = nodes[at] as [Record, Record];
      if (depth === prefix - 1) {
        node[bit] = { data: offset };
        break;
      }
      const next = node[bit];
      if (next && 'node' in next) {
        at = next.node;
      } else {
        nodes.push([null, null]);
        node[bit] = { node: nodes.length - 1 };
        at = nodes.length - 1;
      }
    }
  }
  const count = nodes.length;
  const value = (r: Record) => (r === null ? count : 'node' in r ? r.node : count + 16 + r.data);
  const tree = Buffer.alloc(count * 6);
  nodes.forEach(([left, right], i) => {
    tree.writeUIntBE(value(left), i * 6, 3);
    tree.writeUIntBE(value(right), i * 6 + 3, 3);
  });
  const metadata = encode({
    node_count: count,
    record_size: { uint16: 24 },
    ip_version: { uint16: 4 },
    database_type: 'Test-Country',
    languages: ['en'],
    binary_format_major_version: { uint16: 2 },
    binary_format_minor_version: { uint16: 0 },
    build_epoch: BigInt(Math.floor(Date.now() / 1000)),
    description: { en: 'countries for tests' },
  });
  return Buffer.concat([
    tree,
    Buffer.alloc(16),
    ...data,
    Buffer.from([0xab, 0xcd, 0xef]),
    Buffer.from('MaxMind.com', 'ascii'),
    metadata,
  ]);
};
