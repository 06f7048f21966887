// A reader's email address (issue 44): checked and normalised before it is sealed, mailed or
// compared, so that one person is one reader and an erasure asked for with any spelling of their
// address finds them. Pure: no I/O, no secret.
//
// What is accepted: one address, at most 254 characters as typed and 254 bytes once its domain is
// in ASCII (RFC 5321's limit on a path); a local part of at most 64 bytes, dot-separated words of
// RFC 5322's `atext` and of any letter, mark or digit of another script (RFC 6531: a server that
// speaks SMTPUTF8 delivers them); a domain of at least two labels, IDN allowed, written in lower
// case ASCII (punycode) by node's `url.domainToASCII` (UTS #46: `Bücher.Example` is
// `xn--bcher-kva.example`, full-width letters become ASCII), then held to host-name rules
// (letters, digits and inner hyphens, 1-63 a label, no IP address).
//
// What is refused: anything else, in words, without repeating what was typed (the message may be
// logged; an address must not be). Notably quoted local parts (`"john doe"@example.com`) and
// address literals (`bob@[192.0.2.1]`): legal, almost never used by people, and mishandled by
// many mail systems and forms; and single-label domains (`bob@localhost`), which no mail on the
// internet reaches.
//
// Case: the domain is case-insensitive by definition and is lower-cased. The local part is kept
// as typed in `address` (what mail is sent to: RFC 5321 lets a server tell `Bob` from `bob`), but
// readers are told apart by `identity`, where it is lower-cased too: no provider people use
// delivers `Bob@` and `bob@` to two people, and an erasure asked for as `bob@x.org` must erase
// the reader who typed `Bob@X.org`. Both are in Unicode NFC, so a name typed decomposed is the
// same reader. Provider-specific rules (Gmail's dots and `+tags`) are not applied: they are not
// true of every domain, and guessing would merge two people.
import { domainToASCII, domainToUnicode } from 'node:url';
import { InvalidInput } from './errors.ts';

export type ReaderEmail = {
  /** what mail is sent to and what is sealed: local part as typed (NFC), domain lower-case ASCII */
  address: string;
  /** what tells readers apart (a sealed identity's kid is made from it): `address` in lower case */
  identity: string;
};

/** A reader's identity as events carry it: never the address in clear (src/app/readerIdentity.ts). */
export type SealedEmail = {
  /** keyed hash of the reader's identity: the same reader has the same kid in every event */
  kid: string;
  /** the address, encrypted with the reader's own key (gone once the reader is erased) */
  ct: string;
};

/** Whether a value read back from an event is a sealed identity (a kid and a ct, base64url). */
export const isSealedEmail = (value: unknown): value is SealedEmail => {
  const v = value as Partial<SealedEmail> | null;
  return (
    typeof v?.kid === 'string' &&
    /^[A-Za-z0-9_-]{43}$/.test(v.kid) &&
    typeof v.ct === 'string' &&
    /^[A-Za-z0-9_-]{40,}$/.test(v.ct)
  );
};

export const MAX_ADDRESS = 254;
const MAX_LOCAL_BYTES = 64;
const MAX_DOMAIN = 253;

// RFC 5322 atext, and any letter, mark or digit of another script (RFC 6531).
const LOCAL_WORD = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~\\p{L}\\p{M}\\p{N}-]+";
const LOCAL = new RegExp(`^${LOCAL_WORD}(?:\\.${LOCAL_WORD})*$`, 'u');
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * The address `text` names, normalised, or an InvalidInput saying why it is none: "`field` is not
 * an email address: ...". Surrounding spaces are dropped.
 */
export const readerEmail = (text: string, field = 'the address'): ReaderEmail => {
  const refuse = (why: string) => new InvalidInput(`${field} is not an email address: ${why}`);
  const given = text.trim();
  if (given === '') throw refuse('it is empty');
  if ([...given].length > MAX_ADDRESS) throw refuse(`it is longer than ${MAX_ADDRESS} characters`);
  if (/[\p{Cc}\p{Cf}]/u.test(given)) throw refuse('it contains control characters');
  if (given.includes('"')) throw refuse('quoted local parts ("...") are not accepted');
  if (/[\s,;<>]/u.test(given)) {
    throw refuse('give one address, without spaces, commas, semicolons or angle brackets');
  }
  const at = given.split('@');
  if (at.length < 2) throw refuse('it has no @');
  if (at.length > 2) throw refuse('it has more than one @');
  const [rawLocal = '', rawDomain = ''] = at;
  const local = rawLocal.normalize('NFC');
  if (local === '') throw refuse('nothing comes before the @');
  if (Buffer.byteLength(local) > MAX_LOCAL_BYTES) {
    throw refuse(`the part before the @ is longer than ${MAX_LOCAL_BYTES} bytes`);
  }
  if (!LOCAL.test(local)) {
    throw refuse(
      'the part before the @ has a character an address cannot have, or a dot at its start, its end or next to another',
    );
  }
  const domain = asciiDomain(rawDomain.normalize('NFC'), refuse);
  const address = `${local}@${domain}`;
  if (Buffer.byteLength(address) > MAX_ADDRESS) {
    throw refuse(`it is longer than ${MAX_ADDRESS} bytes once its domain is written in ASCII`);
  }
  return { address, identity: `${local.toLowerCase()}@${domain}` };
};

const asciiDomain = (given: string, refuse: (why: string) => InvalidInput) => {
  if (given === '') throw refuse('nothing comes after the @');
  const notHost = refuse(
    'its domain is not a host name (labels of letters, digits and inner hyphens, separated by dots)',
  );
  if (given.startsWith('[')) throw refuse('its domain is an IP address, not a name');
  // domainToASCII is a URL's host parser: it would decode `%41` and take `/` or `:` as the end
  // of a host. Letters, marks, digits, hyphens and the dots UTS #46 maps to `.` only.
  if (!/^[\p{L}\p{M}\p{N}.\u3002\uff0e\uff61-]+$/u.test(given)) throw notHost;
  // It also reads `1.2.3` and `0x7f.1` as IPv4 addresses (rewritten `1.2.0.3`, `127.0.0.1`) and
  // refuses `example.123`: a name's last label is never a number.
  const ipLike = /^(?:\d+|0x[0-9a-f]*)$/i;
  if (ipLike.test(given.split('.').pop() ?? '')) {
    throw refuse('its domain is an IP address, not a name');
  }
  const domain = domainToASCII(given);
  const labels = domain.split('.');
  if (ipLike.test(labels[labels.length - 1] ?? '')) {
    throw refuse('its domain is an IP address, not a name');
  }
  if (domain === '' || domain.length > MAX_DOMAIN || !labels.every((l) => LABEL.test(l))) {
    throw notHost;
  }
  // Node 24 passes `xn--` labels through unchecked: one that does not decode is no name.
  if (labels.some((l) => l.startsWith('xn--') && domainToUnicode(l) === l)) throw notHost;
  if (labels.length < 2) {
    throw refuse(
      'its domain has no dot (a single name, such as localhost, is not reachable by mail)',
    );
  }
  return domain;
};

/** One entry of a link's allow list: an address (that reader only) or a domain (its readers). */
export type AllowEntry =
  | { kind: 'address'; email: ReaderEmail }
  | { kind: 'domain'; domain: string };

/**
 * An allow list's entry as the sender wrote it: `bob@x.org`, or `acme.com` (also `@acme.com`),
 * IDN allowed; refused in words otherwise (without repeating it).
 */
export const allowEntry = (text: string, field = 'an allow entry'): AllowEntry => {
  const given = text.trim();
  if (given.includes('@') && !given.startsWith('@')) {
    return { kind: 'address', email: readerEmail(given, field) };
  }
  const refuse = (why: string) =>
    new InvalidInput(`${field} is neither an address nor a domain: ${why}`);
  const name = given.replace(/^@/, '');
  if (/[\p{Cc}\p{Cf}\s@]/u.test(name)) throw refuse('it has spaces or control characters');
  return { kind: 'domain', domain: asciiDomain(name.normalize('NFC'), refuse) };
};

/** Whether a reader's address is one an allow list lets in (an empty list: no one). */
export const allowedBy = (entries: readonly AllowEntry[], reader: ReaderEmail) => {
  const domain = reader.address.slice(reader.address.lastIndexOf('@') + 1);
  return entries.some((entry) =>
    entry.kind === 'address' ? entry.email.identity === reader.identity : entry.domain === domain,
  );
};

/**
 * An address as people read it: the domain in Unicode (`bob@bücher.example`, not its punycode),
 * the part before the @ as typed. Mail still goes to `address`.
 */
export const shownAddress = (address: string) => {
  const at = address.lastIndexOf('@');
  return at < 0 ? address : `${address.slice(0, at)}@${domainToUnicode(address.slice(at + 1))}`;
};

/** A domain as people read it (Unicode). */
export const shownDomain = (domain: string) => domainToUnicode(domain) || domain;
