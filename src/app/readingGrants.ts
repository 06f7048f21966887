// Reading grants (./readerAccess.ts): a signed, short-lived name of who reads which flipbook,
// which prefixes the URLs of its files (/a/<grant>/...). Signed with the installation's secret
// (./signedFields.ts); what a grant still lets its holder do is asked of the database on every
// request (readerAccess.ts, grantAllows).
import { isUuid } from '../domain/uuid.ts';
import { signedFields } from './signedFields.ts';

export type Grant = {
  /** `link`: a share link's reader (holder: the link); `member`: a signed-in member (the session) */
  kind: 'link' | 'member';
  holder: string;
  flipbookId: string;
  /** unix seconds */
  expires: number;
  /**
   * A link's password it was given for (its id): a new password ends the grants of the old one
   * (and a password added to a link, the grants given without one). Null: none.
   */
  key: string | null;
  /** the identified reader it was given to (a link that asks who reads); null: none */
  reader: string | null;
  /** the key of the link's rules it was given under (./readerCookies.ts): a change ends it */
  rules?: string | null;
};

export type Grants = {
  sign: (grant: Grant) => string;
  /** the grant a string holds, if we signed it and it has not expired; else null */
  read: (text: string, now: Date) => Grant | null;
};

const KINDS = { l: 'link', m: 'member' } as const;

export const grantsSignedWith = (secret: string): Grants => {
  const signer = signedFields(secret);
  return {
    sign: (g) =>
      signer.sign([
        g.kind === 'link' ? 'l' : 'm',
        g.holder,
        g.flipbookId,
        g.expires,
        ...(g.key === null && g.reader === null ? [] : [g.key ?? '-']),
        ...(g.reader === null ? [] : [g.reader, g.rules ?? '-']),
      ]),
    read: (text, now) => {
      const fields = signer.open(text, 240);
      if (!fields || fields.length < 4 || fields.length > 7 || fields.length === 6) return null;
      const [kind = '', holder = '', flipbookId = '', expires = '', given = '-', reader = null] =
        fields;
      const rules = fields[6] === undefined || fields[6] === '-' ? null : fields[6];
      const key = given === '-' ? null : given;
      if (
        !(kind in KINDS) ||
        !isUuid(holder) ||
        !isUuid(flipbookId) ||
        !/^\d{1,12}$/.test(expires) ||
        (key !== null && !isUuid(key)) ||
        (reader !== null && !isUuid(reader))
      )
        return null;
      if (Number(expires) * 1000 <= now.getTime()) return null;
      return {
        kind: KINDS[kind as keyof typeof KINDS],
        holder,
        flipbookId,
        expires: Number(expires),
        key,
        reader,
        ...(reader === null ? {} : { rules }),
      };
    },
  };
};
