// Identified readers' addresses, sealed so that erasing a reader does not touch the event log
// (issue 44; docs/architecture.md, "Readers' identities: crypto-shredding"). Events are kept
// forever and chained (docs/audit.md): an address written in one could never be erased without
// breaking the chain. So an event that concerns a reader carries a SealedEmail instead:
//
// - `kid`: HMAC-SHA256 of the reader's identity (src/domain/readerEmail.ts) under a sub-key of
//   the installation's secret, base64url (43 characters). The same reader has the same kid in
//   every event, so their events and their key can be found to erase them; another installation
//   (another secret) gives them another kid. The sub-key is derived with HKDF (info "flipbook
//   reader kid") rather than the secret used raw, since the secret also signs reading grants and
//   tokens (./signedFields.ts): one key, one purpose.
// - `ct`: the address (as ReaderEmail writes it: the local part as typed) encrypted with
//   AES-256-GCM under the reader's own random key (src/state/readerKeys.ts), a random 12-byte IV,
//   and the kid as associated data (a ct moved under another reader's kid does not open);
//   base64url of IV || ciphertext || 16-byte tag.
//
// Erasure deletes the key. The events keep their bytes (the chain still verifies) and their kid,
// but no ct opens again. A reader sealed again after an erasure gets a new key under the same kid
// (the kid is made from the address): their old events' ct still does not open, so what tells an
// erased event from a live one is whether its ct opens, never the kid alone.
//
// No cache: a seal is one insert and one select on a primary key, an open one select, and a
// cache would have to be emptied on every daemon at an erasure.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { isSealedEmail, readerEmail, type SealedEmail } from '../domain/readerEmail.ts';
import { deleteReaderKey, findReaderKey, readerKey } from '../state/readerKeys.ts';
import type { Store } from '../store/store.ts';
import type { Clock } from './clock.ts';

export type ReaderIdentityDeps = {
  store: Store;
  /** dates a reader's key (when they were first sealed) */
  clock: Clock;
  /** the installation's secret (./readerAccess.ts, installationSecret) */
  secret: string;
};

const CIPHER = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * `scope`: whose reader this is (a workspace's id): the same person reading two workspaces' links
 * is two readers, each with their own key, so one workspace erasing them leaves the other's
 * records as they were. Empty: the installation's.
 */
const kidFor = (secret: string, identity: string, scope: string) => {
  const key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'flipbook reader kid', 32));
  return createHmac('sha256', key)
    .update(scope ? `${scope}\n${identity}` : identity)
    .digest('base64url');
};

/** The kid of the reader `email` names (InvalidInput when it is no address). */
export const kidOf = (deps: Pick<ReaderIdentityDeps, 'secret'>, email: string, scope = '') =>
  kidFor(deps.secret, readerEmail(email).identity, scope);

/** The reader's address sealed for an event: their key is made on first use. */
export const sealEmail = async (
  deps: ReaderIdentityDeps,
  email: string,
  scope = '',
): Promise<SealedEmail> => {
  const { address, identity } = readerEmail(email);
  const kid = kidFor(deps.secret, identity, scope);
  const key = await readerKey(deps.store.db, kid, randomBytes(32), deps.clock.now());
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(CIPHER, key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(kid));
  const sealed = Buffer.concat([iv, cipher.update(address, 'utf8'), cipher.final()]);
  return { kid, ct: Buffer.concat([sealed, cipher.getAuthTag()]).toString('base64url') };
};

/**
 * The address a sealed identity holds, or null when it cannot be opened: the reader was erased
 * (sealed again since or not), or it was not sealed by this installation.
 */
export const openEmail = async (
  deps: Pick<ReaderIdentityDeps, 'store'>,
  sealed: SealedEmail,
): Promise<string | null> => {
  // read back from an event's JSON: whatever it holds, a malformed one opens nothing
  if (!isSealedEmail(sealed)) return null;
  const bytes = Buffer.from(sealed.ct, 'base64url');
  if (bytes.length <= IV_BYTES + TAG_BYTES) return null;
  const key = await findReaderKey(deps.store.db, sealed.kid);
  if (!key) return null;
  try {
    const decipher = createDecipheriv(CIPHER, key, bytes.subarray(0, IV_BYTES), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(Buffer.from(sealed.kid));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    const text = Buffer.concat([
      decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
      decipher.final(),
    ]);
    return text.toString('utf8');
  } catch {
    // sealed under a key since erased (the reader has a new one now), or not ours
    return null;
  }
};

/**
 * Erases the reader `email` names: deletes their key, so nothing sealed for them opens again.
 * True when there was one; erasing an erased (or unknown) reader is false and changes nothing.
 */
export const forgetReader = (
  deps: Pick<ReaderIdentityDeps, 'store' | 'secret'>,
  email: string,
  scope = '',
) => deleteReaderKey(deps.store.db, kidOf(deps, email, scope));
