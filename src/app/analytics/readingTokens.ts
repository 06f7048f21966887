// What a reader page's beacons are counted for (issue 30): a token the server signs into the
// page, naming the flipbook, the version, the share link it was opened by and the number of
// pages. A beacon's figures go where its token says, never where its body says, so no one can
// count into another flipbook's figures; pages beyond the version's are not counted.
import { isUuid } from '../../domain/uuid.ts';
import { signedFields } from '../signedFields.ts';

/** How long a page's token counts: a reader left open for days still counts when it comes back. */
export const READING_TOKEN_MS = 7 * 24 * 3_600_000;

export type ReadingToken = {
  flipbookId: string;
  versionId: string;
  /** the share link the reader came by; null: the book's own URL */
  linkId: string | null;
  /** the identified reader it was made for (a link that asks who reads); null: anonymous */
  readerId?: string | null;
  pages: number;
  /** unix seconds */
  expires: number;
};

export const readingTokensSignedWith = (secret: string) => {
  const signer = signedFields(secret);
  const checked = new Map<string, ReadingToken>();
  /** A token's fields, if signed here, well-formed and not expired. */
  const check = (text: string, now: Date): ReadingToken | null => {
    const fields = signer.open(text, 200);
    if (!fields || fields.length < 6 || fields.length > 7) return null;
    const [kind, flipbookId = '', versionId = '', link = '', pages = '', expires = '', reader] =
      fields;
    if (
      (reader !== undefined && !isUuid(reader)) ||
      kind !== 'r' ||
      !isUuid(flipbookId) ||
      !isUuid(versionId) ||
      (link !== '-' && !isUuid(link)) ||
      !/^[1-9]\d{0,5}$/.test(pages) ||
      !/^\d{1,12}$/.test(expires) ||
      Number(expires) * 1000 <= now.getTime()
    ) {
      return null;
    }
    return {
      flipbookId,
      versionId,
      linkId: link === '-' ? null : link,
      readerId: reader ?? null,
      pages: Number(pages),
      expires: Number(expires),
    };
  };
  return {
    sign: (t: ReadingToken) =>
      signer.sign([
        'r',
        t.flipbookId,
        t.versionId,
        t.linkId ?? '-',
        t.pages,
        t.expires,
        ...(t.readerId ? [t.readerId] : []),
      ]),
    /** The token a beacon holds, if signed here and not expired; else null. */
    read: (text: string, now: Date): ReadingToken | null => {
      // Every reader of a book holds the same token all day: its signature is checked once.
      const known = checked.get(text);
      if (known) return known.expires * 1000 > now.getTime() ? known : null;
      const token = check(text, now);
      if (token) {
        if (checked.size >= 10_000) checked.clear();
        checked.set(text, token);
      }
      return token;
    },
  };
};
