// A flipbook's share links (docs/access.md): create (the URL shown once), list (never a token),
// change, revoke. Each change is an event on the flipbook's stream with its actor; the token is
// recorded only as its hash, a password only in its own table (link_passwords).
import { randomUUID } from 'node:crypto';
import type {
  CreatedShareLink,
  CreateShareLinkBody,
  EditShareLinkBody,
  ShareLink,
  ShareLinkList,
} from '../contract/shareLinks.ts';
import { InvalidInput, NotFound, RuleBroken } from '../domain/errors.ts';
import { linkPassword, type ShareLinkCommand } from '../domain/flipbook/shareLinks.ts';
import { allowEntry, shownAddress, shownDomain } from '../domain/readerEmail.ts';
import { findFlipbook } from '../readTables/flipbooks.ts';
import {
  findShareLink,
  forgetUnusedPassword,
  listShareLinks,
  type ShareLinkRow,
  saveLinkPassword,
  sweepLinkPasswords,
} from '../readTables/shareLinks.ts';
import { saveAllowList, sweepAllowLists } from '../state/linkReaders.ts';
import { hashPassword } from './accounts/passwords.ts';
import { hashToken, newToken } from './accounts/tokens.ts';
import type { ApiDeps } from './apiDeps.ts';
import type { Caller } from './caller.ts';
import { runFlipbookCommand } from './commands.ts';

const shown = (row: ShareLinkRow, now: Date): ShareLink => ({
  identify: row.identify,
  terms: row.terms,
  allow: row.allow_entries.map((e) =>
    'domain' in e ? shownDomain(e.domain) : shownAddress(e.address),
  ),
  allow_limited: row.allow_list_id !== null,
  watermark: row.watermark,
  notify: row.notify,
  readers: row.readers,
  id: row.id,
  flipbook_id: row.flipbook_id,
  label: row.label,
  expires_at: row.expires_at,
  expired: row.expires_at !== null && new Date(row.expires_at) <= now,
  has_password: row.has_password,
  allow_download: row.allow_download,
  opens: row.opens,
  last_opened_on: row.last_opened_on,
  created_at: row.created_at,
});

const bookOf = async (deps: ApiDeps, caller: Caller, flipbookId: string) => {
  // Another workspace's flipbook is as unknown as none (isolation).
  if (!(await findFlipbook(deps.store.db, caller.workspaceId, flipbookId))) {
    throw new NotFound('Flipbook not found');
  }
};

const linkOf = async (deps: ApiDeps, flipbookId: string, linkId: string) => {
  const row = await findShareLink(deps.store.db, flipbookId, linkId.toLowerCase());
  if (!row) throw new NotFound('Share link not found');
  return row;
};

/** A date the body gave, or null; the domain says whether it is in the future. */
const dateOf = (raw: string | null | undefined) => {
  if (raw === undefined) return undefined;
  if (raw === null) return null;
  const at = new Date(raw);
  if (Number.isNaN(at.getTime())) throw new InvalidInput('Invalid expires_at: not a date');
  return at;
};

/**
 * A hash no link names and this old is a leftover, never one on its way to its event (saved
 * just before it): a day covers any clock skew between daemons.
 */
const LEFTOVER_MS = 24 * 3_600_000;

/**
 * A password to keep: hashed into link_passwords, named by the id the event records. Each new one
 * also sweeps the leftovers: hashes no link names (a process that died between the hash and its
 * event, or hashes an earlier build never deleted).
 */
const keptPassword = async (deps: ApiDeps, linkId: string, password: string | null | undefined) => {
  if (password === undefined || password === null) return password;
  const passwordId = randomUUID();
  const hash = await hashPassword(linkPassword(password));
  const now = deps.clock.now();
  await saveLinkPassword(deps.store.db, { passwordId, linkId, hash, now });
  await sweepLinkPasswords(deps.store.db, new Date(now.getTime() - LEFTOVER_MS));
  return passwordId;
};

/** Runs a change that saved a password first: refused, it leaves no hash behind. */
const withPassword = async <T>(
  deps: ApiDeps,
  passwordId: string | null | undefined,
  change: () => Promise<T>,
) => {
  try {
    return await change();
  } catch (error) {
    if (passwordId) await forgetUnusedPassword(deps.store.db, passwordId).catch(() => {});
    throw error;
  }
};

/** What a link's rules may ask that needs mail, refused in words without a mail server. */
const needsMail = (deps: LinkDeps, body: CreateShareLinkBody | EditShareLinkBody) => {
  if (deps.mailConfigured) return;
  const asks = [
    ...(body.identify === 'verified_email' ? ['identify "verified_email" (a code is mailed)'] : []),
    ...(body.notify ? ['notify (the creator is mailed)'] : []),
  ];
  if (asks.length > 0) {
    throw new RuleBroken(
      `${asks.join(' and ')} need${asks.length === 1 ? 's' : ''} mail, and this service has no mail server: its operator starts it with --smtp-url`,
    );
  }
};

/** A new allow list kept (its id for the event), or null to clear it; undefined: unchanged. */
const keptAllowList = async (
  deps: LinkDeps,
  linkId: string,
  allow: string[] | null | undefined,
) => {
  if (allow === undefined) return undefined;
  if (allow === null || allow.length === 0) return null;
  // Named by their place in the list, never repeated (a refusal may be logged); the same entry
  // twice (`bücher.example` and its punycode) kept once.
  const seen = new Set<string>();
  const entries = allow
    .map((entry, i) => allowEntry(entry, `allow entry ${i + 1}`))
    .filter((entry) => {
      const key = entry.kind === 'domain' ? `@${entry.domain}` : entry.email.identity;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  const listId = randomUUID();
  const now = deps.clock.now();
  await saveAllowList(deps.store.db, { listId, linkId, entries, now });
  await sweepAllowLists(deps.store.db, new Date(now.getTime() - LEFTOVER_MS));
  return listId;
};

type LinkDeps = ApiDeps & { mailConfigured?: boolean };

/** The reader rules a body asks for, as the command takes them. */
const rulesOf = (
  body: CreateShareLinkBody | EditShareLinkBody,
  allowListId: string | null | undefined,
) => ({
  ...(body.identify === undefined ? {} : { identify: body.identify }),
  ...(body.terms === undefined ? {} : { terms: body.terms }),
  ...(allowListId === undefined ? {} : { allowListId }),
  ...(body.watermark === undefined ? {} : { watermark: body.watermark }),
  ...(body.notify === undefined ? {} : { notify: body.notify }),
});

/**
 * The share links of one flipbook of the caller's workspace, each use case after the check that
 * the flipbook is theirs (another workspace's is as unknown as none).
 */
export const shareLinksOf = (deps: LinkDeps, caller: Caller, flipbookId: string) => {
  const run = async (command: ShareLinkCommand) => {
    await bookOf(deps, caller, flipbookId);
    await runFlipbookCommand(deps.store, flipbookId, command, caller.metadata);
  };
  const current = async (linkId: string) => {
    await bookOf(deps, caller, flipbookId);
    return linkOf(deps, flipbookId, linkId);
  };
  const now = () => deps.clock.now();
  return {
    create: async (body: CreateShareLinkBody): Promise<CreatedShareLink> => {
      const linkId = randomUUID();
      const token = newToken();
      await bookOf(deps, caller, flipbookId);
      needsMail(deps, body);
      const expiresAt = dateOf(body.expires_at) ?? null;
      const allowListId = await keptAllowList(deps, linkId, body.allow);
      const passwordId = await keptPassword(deps, linkId, body.password);
      const allowDownload = body.allow_download ?? true;
      const tokenHash = hashToken(token);
      await withPassword(deps, passwordId, () =>
        run({
          type: 'CreateShareLink',
          data: {
            linkId,
            label: body.label,
            tokenHash,
            expiresAt,
            passwordId: passwordId ?? null,
            allowDownload,
            ...rulesOf(body, allowListId),
            now: now(),
          },
        }),
      );
      const row = await linkOf(deps, flipbookId, linkId);
      return { ...shown(row, now()), url: deps.urls.shareLink(token) };
    },
    list: async (): Promise<ShareLinkList> => {
      await bookOf(deps, caller, flipbookId);
      const rows = await listShareLinks(deps.store.db, flipbookId);
      return { links: rows.map((row) => shown(row, now())) };
    },
    get: async (linkId: string): Promise<ShareLink> => shown(await current(linkId), now()),
    edit: async (linkId: string, body: EditShareLinkBody): Promise<ShareLink> => {
      const { id } = await current(linkId);
      needsMail(deps, body);
      const { label, allow_download: allowDownload } = body;
      const expiresAt = dateOf(body.expires_at);
      const allowListId = await keptAllowList(deps, id, body.allow);
      const passwordId = await keptPassword(deps, id, body.password);
      const rules = rulesOf(body, allowListId);
      await withPassword(deps, passwordId, () =>
        run({
          type: 'EditShareLink',
          data: { linkId: id, label, expiresAt, passwordId, allowDownload, ...rules, now: now() },
        }),
      );
      return shown(await linkOf(deps, flipbookId, id), now());
    },
    /** Revoked at once: its token finds nothing on any daemon, and grants made from it stop. */
    revoke: async (linkId: string) => {
      const { id } = await current(linkId);
      await run({ type: 'RevokeShareLink', data: { linkId: id, now: now() } });
      return { id, revoked: true as const };
    },
  };
};
