// What a browser keeps once its reader gave an address at a share link (issue 44): a signed
// name of that reader, for that link, under that link's rules. Kept in a cookie of the link's
// path (HttpOnly, SameSite=Lax, 30 days), so the reader is not asked again on that browser. A
// change to what the link asks (identify, terms, allow list) changes its rules' key: the old
// cookie no longer reads, and the reader is asked again. A forged cookie does not open (the
// signature), a replayed one opens only the link and reader it names (and nothing once that
// reader is erased: the row says so, src/app/linkReaders.ts). The same shape, with its own
// letter and ten minutes, names a reader waiting for the code mailed to them.
import { createHash } from 'node:crypto';
import { isUuid } from '../domain/uuid.ts';
import type { LinkRules } from '../readTables/shareLinks.ts';
import { signedFields } from './signedFields.ts';

/** How long a browser is remembered for a link. */
export const READER_COOKIE_DAYS = 30;
/** How long a mailed code is good for (and the cookie waiting for it). */
export const CODE_MS = 10 * 60_000;

export type ReaderMark = { readerId: string; linkId: string };

const KINDS = { reader: 'i', code: 'c' } as const;

/** The key of what a link asks: a change to any of it asks readers again. */
export const rulesKey = (rules: Pick<LinkRules, 'identify' | 'terms' | 'allow_list_id'>) =>
  createHash('sha256')
    .update(`${rules.identify}\u0000${rules.terms ?? ''}\u0000${rules.allow_list_id ?? ''}`)
    .digest('base64url')
    .slice(0, 16);

export const readerCookiesSignedWith = (secret: string) => {
  const signer = signedFields(secret);
  const sign = (kind: keyof typeof KINDS, mark: ReaderMark, rules: string, until: number) =>
    signer.sign([KINDS[kind], mark.readerId, mark.linkId, rules, Math.floor(until / 1000)]);
  const read = (kind: keyof typeof KINDS, text: string | null, rules: string, now: Date) => {
    const fields = text ? signer.open(text, 160) : null;
    if (!fields || fields.length !== 5) return null;
    const [letter, readerId = '', linkId = '', key, expires = ''] = fields;
    if (letter !== KINDS[kind] || key !== rules || !isUuid(readerId) || !isUuid(linkId)) {
      return null;
    }
    if (!/^\d{1,12}$/.test(expires) || Number(expires) * 1000 <= now.getTime()) return null;
    return { readerId, linkId };
  };
  return {
    /** The cookie's value for an identified reader, and its lifetime in seconds. */
    reader: (mark: ReaderMark, rules: string, now: Date) => {
      const seconds = READER_COOKIE_DAYS * 86_400;
      return { value: sign('reader', mark, rules, now.getTime() + seconds * 1000), seconds };
    },
    /** The same for a reader waiting for their code. */
    code: (mark: ReaderMark, rules: string, now: Date) => ({
      value: sign('code', mark, rules, now.getTime() + CODE_MS),
      seconds: CODE_MS / 1000,
    }),
    /** The reader a cookie names, if signed here for this link's rules and not expired. */
    readReader: (text: string | null, rules: string, now: Date) => read('reader', text, rules, now),
    readCode: (text: string | null, rules: string, now: Date) => read('code', text, rules, now),
  };
};

export type ReaderCookies = ReturnType<typeof readerCookiesSignedWith>;
