// A reader's country, when the operator gives a GeoIP database (`serve --geoip-file`, off by
// default; docs/privacy.md): a MaxMind DB file (GeoLite2 Country or City, DB-IP's IP to Country
// Lite) read into memory by `maxmind`, looked up at the beacon, and only the country's ISO code
// counted. Nothing is looked up without the file, and the address is never kept either way.
import { readFile, stat } from 'node:fs/promises';
import { type CountryResponse, Reader } from 'maxmind';

/** GeoLite2 City is 60 MB, DB-IP's city lite 130 MB: a country database is far smaller. */
const MAX_GEOIP_BYTES = 512 * 1024 * 1024;

export type Countries = { of: (address: string | null) => string | null };

/** An IPv4 address written as IPv6 (`::ffff:192.0.2.1`) is looked up as IPv4. */
const plain = (address: string) => address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');

/** Opens the database; an Error saying why when the file cannot be read or is not one. */
export const openCountries = async (path: string): Promise<Countries> => {
  let reader: Reader<CountryResponse>;
  try {
    if (!path) throw new Error('no file named');
    // A regular file of a sensible size: not a device or a pipe, read forever into memory.
    const file = await stat(path);
    if (!file.isFile()) throw new Error('not a regular file');
    if (file.size > MAX_GEOIP_BYTES) throw new Error(`larger than ${MAX_GEOIP_BYTES >> 20} MB`);
    reader = new Reader<CountryResponse>(await readFile(path));
  } catch (error) {
    const why =
      (error as NodeJS.ErrnoException).code === 'ENOENT'
        ? 'no such file'
        : (error as Error).message;
    throw new Error(`--geoip-file ${path}: not a readable MaxMind DB file (${why})`);
  }
  return {
    of: (address) => {
      if (!address) return null;
      try {
        const code = reader.get(plain(address))?.country?.iso_code;
        return typeof code === 'string' && /^[A-Z]{2}$/.test(code) ? code : null;
      } catch {
        // an IPv6 address in an IPv4-only database, or not an address at all
        return null;
      }
    },
  };
};
