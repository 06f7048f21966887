// A ZIP written entry by entry, as Office and LibreOffice write one (local headers, then the
// central directory): for the content sniffer's and the converter's tests. `declaredSize` lets a
// test lie about an entry's unpacked size, as a ZIP bomb's directory may.
import { deflateRawSync } from 'node:zlib';

export type ZipEntry = {
  name: string;
  data: Buffer | string;
  store?: boolean;
  declaredSize?: number;
};

/** A ZIP as Office and LibreOffice write one: local headers, then the central directory. */
export const zip = (entries: ZipEntry[]) => {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const raw = Buffer.from(e.data);
    const body = e.store ? raw : deflateRawSync(raw);
    const name = Buffer.from(e.name);
    // A local header and its central-directory record share their fields from the method on,
    // at `method` (8 in the local header, 10 behind the directory's "version made by").
    const header = (length: number, signature: number, method: number) => {
      const h = Buffer.alloc(length);
      h.writeUInt32LE(signature, 0);
      h.writeUInt16LE(e.store ? 0 : 8, method);
      h.writeUInt32LE(body.length, method + 10);
      h.writeUInt32LE(e.declaredSize ?? raw.length, method + 14);
      h.writeUInt16LE(name.length, method + 18);
      return h;
    };
    const local = header(30, 0x04034b50, 8);
    const dir = header(46, 0x02014b50, 10);
    dir.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    central.push(dir, name);
    offset += 30 + name.length + body.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
};
