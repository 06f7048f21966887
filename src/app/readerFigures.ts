// Identified readers, for the people of their workspace (issue 44; docs/access.md, "Who reads";
// docs/privacy.md): a link's readers with what each read (JSON or CSV), and a reader erased at
// the workspace's request, everywhere the workspace keeps their address.
import type { LinkReader, LinkReaderList } from '../contract/readers.ts';
import { readerEmail, shownAddress } from '../domain/readerEmail.ts';
import { eraseReaderRows, linkReaders, type ReaderRow } from '../state/linkReaders.ts';
import { deleteReaderKey } from '../state/readerKeys.ts';
import type { ApiDeps } from './apiDeps.ts';
import type { Caller } from './caller.ts';
import { runWorkspaceCommand } from './commands.ts';
import { MAX_READERS_PER_LINK } from './readerAdmission.ts';
import { readingOf } from './readerAlerts.ts';
import { kidOf, openEmail } from './readerIdentity.ts';
import { shareLinksOf } from './shareLinks.ts';
import type { StampedDownloads } from './stampedDownloads.ts';

type FigureDeps = ApiDeps & { secret?: string; stamped?: StampedDownloads };

const secretOf = (deps: FigureDeps) => {
  if (!deps.secret) throw new Error('readers: the installation secret was not given');
  return deps.secret;
};

const shownReader = (row: ReaderRow, email: string): LinkReader => {
  const reading = readingOf(row);
  return {
    email: shownAddress(email),
    verified: row.verified,
    identified_at: row.identified_at as string,
    terms_accepted_at: row.accepted_at,
    first_opened_at: row.first_open,
    last_opened_at: row.last_open,
    opens: row.opens,
    read_seconds: reading.read_seconds,
    pages_seen: reading.pages_seen,
    page_count: row.page_count,
    last_page: row.last_page,
    completed: reading.completed,
    downloads: row.downloads,
  };
};

/** A link's identified readers (a link of another workspace, or revoked: a 404). */
export const listLinkReaders = async (
  deps: FigureDeps,
  caller: Caller,
  flipbookId: string,
  linkId: string,
): Promise<LinkReaderList> => {
  const link = await shareLinksOf(deps, caller, flipbookId).get(linkId);
  const rows = await linkReaders(deps.store.db, link.id, MAX_READERS_PER_LINK);
  const readers: LinkReader[] = [];
  for (const row of rows) {
    // An erased reader's figures stay, without a name: not a reader to list.
    const email =
      row.kid && row.email_ct ? await openEmail(deps, { kid: row.kid, ct: row.email_ct }) : null;
    if (email) readers.push(shownReader(row, email));
  }
  return { readers };
};

const CSV_COLUMNS: (keyof LinkReader)[] = [
  'email',
  'verified',
  'identified_at',
  'terms_accepted_at',
  'first_opened_at',
  'last_opened_at',
  'opens',
  'read_seconds',
  'pages_seen',
  'page_count',
  'last_page',
  'completed',
  'downloads',
];

/**
 * A cell as spreadsheets read it safely: quoted when it must be, and never a formula (an
 * address may begin with `=`, `+`, `-` or `@`: it is prefixed with a quote mark).
 */
const cell = (value: unknown) => {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n']/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

export const readersCsv = (list: LinkReaderList) => ({
  fileName: 'readers.csv',
  text: [CSV_COLUMNS, ...list.readers.map((r) => CSV_COLUMNS.map((c) => r[c]))]
    .map((row) => row.map(cell).join(','))
    .join('\r\n')
    .concat('\r\n'),
});

/**
 * Erases a reader of the caller's workspace: the address goes from every record of theirs
 * (their figures stay, without a name), from allow lists, from mails and webhook deliveries not
 * yet sent or kept, and their key is deleted, so nothing sealed for them opens again. Recorded
 * in the audit trail without the address. Erasing an unknown reader is recorded too, and says 0.
 */
export const eraseReader = async (deps: FigureDeps, caller: Caller, given: string) => {
  const email = readerEmail(given.slice(0, 1024));
  const kid = kidOf({ secret: secretOf(deps) }, email.address, caller.workspaceId);
  const db = deps.store.db;
  const { readerIds } = await eraseReaderRows(db, {
    workspaceId: caller.workspaceId,
    kid,
    identity: email.identity,
  });
  await deleteReaderKey(db, kid);
  await deps.stamped?.forget(readerIds);
  // Mails about them (alerts to the link's creator, their codes) not sent yet, and every kept
  // webhook payload that names them: without the address.
  await db.query('DELETE FROM mail_outbox WHERE ref = ANY($1::text[])', [readerIds]);
  await db.query(
    `UPDATE webhook_deliveries SET payload = jsonb_set(payload, '{data,reader,email}', 'null')
     WHERE workspace_id = $1 AND seq IS NULL AND payload->'data'->'reader'->>'id' = ANY($2::text[])`,
    [caller.workspaceId, readerIds],
  );
  await runWorkspaceCommand(
    deps.store,
    caller.workspaceId,
    { type: 'RecordReaderErased', data: { readers: readerIds.length, now: deps.clock.now() } },
    caller.metadata,
  );
  return { erased: readerIds.length };
};
