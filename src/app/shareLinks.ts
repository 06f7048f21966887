// A flipbook's share links (docs/access.md): create (the URL shown once), list (never a token),
// change, revoke. Each change is an event on the flipbook's stream with its actor; the token is
// recorded only as its hash, a password only in its own table (link_passwords).
import { randomUUID } from 'node:crypto';
import { findFlipbook } from '../../projections/flipbooks.ts';
import {
  findShareLink,
  listShareLinks,
  type ShareLinkRow,
  saveLinkPassword,
} from '../../projections/shareLinks.ts';
import type {
  CreatedShareLink,
  CreateShareLinkBody,
  EditShareLinkBody,
  ShareLink,
  ShareLinkList,
} from '../contract/shareLinks.ts';
import { InvalidInput, NotFound } from '../domain/errors.ts';
import { hashPassword } from './accounts/passwords.ts';
import { hashToken, newToken } from './accounts/tokens.ts';
import type { Caller } from './caller.ts';
import { runFlipbookCommand } from './commands.ts';
import type { ApiDeps } from './flipbooks.ts';

const shown = (row: ShareLinkRow, now: Date): ShareLink => ({
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

/** A password to keep: hashed into link_passwords, named by the id the event records. */
const keptPassword = async (deps: ApiDeps, linkId: string, password: string | null | undefined) => {
  if (password === undefined || password === null) return password;
  if (password.trim() === '') throw new InvalidInput('Invalid password: it must not be blank');
  const passwordId = randomUUID();
  const hash = await hashPassword(password);
  await saveLinkPassword(deps.store.db, { passwordId, linkId, hash, now: deps.clock.now() });
  return passwordId;
};

export const createShareLink = async (
  deps: ApiDeps,
  caller: Caller,
  flipbookId: string,
  body: CreateShareLinkBody,
): Promise<CreatedShareLink> => {
  await bookOf(deps, caller, flipbookId);
  const linkId = randomUUID();
  const token = newToken();
  const passwordId = await keptPassword(deps, linkId, body.password);
  await runFlipbookCommand(
    deps.store,
    flipbookId,
    {
      type: 'CreateShareLink',
      data: {
        linkId,
        label: body.label,
        tokenHash: hashToken(token),
        expiresAt: dateOf(body.expires_at) ?? null,
        passwordId: passwordId ?? null,
        allowDownload: body.allow_download ?? true,
        now: deps.clock.now(),
      },
    },
    caller.metadata,
  );
  const row = await linkOf(deps, flipbookId, linkId);
  return { ...shown(row, deps.clock.now()), url: deps.urls.shareLink(token) };
};

export const listFlipbookLinks = async (
  deps: ApiDeps,
  caller: Caller,
  flipbookId: string,
): Promise<ShareLinkList> => {
  await bookOf(deps, caller, flipbookId);
  const now = deps.clock.now();
  return { links: (await listShareLinks(deps.store.db, flipbookId)).map((row) => shown(row, now)) };
};

export const getShareLink = async (
  deps: ApiDeps,
  caller: Caller,
  flipbookId: string,
  linkId: string,
): Promise<ShareLink> => {
  await bookOf(deps, caller, flipbookId);
  return shown(await linkOf(deps, flipbookId, linkId), deps.clock.now());
};

export const editShareLink = async (
  deps: ApiDeps,
  caller: Caller,
  flipbookId: string,
  linkId: string,
  body: EditShareLinkBody,
): Promise<ShareLink> => {
  await bookOf(deps, caller, flipbookId);
  const id = (await linkOf(deps, flipbookId, linkId)).id;
  const passwordId = await keptPassword(deps, id, body.password);
  await runFlipbookCommand(
    deps.store,
    flipbookId,
    {
      type: 'EditShareLink',
      data: {
        linkId: id,
        label: body.label,
        expiresAt: dateOf(body.expires_at),
        passwordId,
        allowDownload: body.allow_download,
        now: deps.clock.now(),
      },
    },
    caller.metadata,
  );
  return shown(await linkOf(deps, flipbookId, id), deps.clock.now());
};

/** Revoked at once: its token finds nothing on any daemon, and grants made from it stop. */
export const revokeShareLink = async (
  deps: ApiDeps,
  caller: Caller,
  flipbookId: string,
  linkId: string,
) => {
  await bookOf(deps, caller, flipbookId);
  const id = (await linkOf(deps, flipbookId, linkId)).id;
  await runFlipbookCommand(
    deps.store,
    flipbookId,
    { type: 'RevokeShareLink', data: { linkId: id, now: deps.clock.now() } },
    caller.metadata,
  );
  return { id, revoked: true as const };
};
