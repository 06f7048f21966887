// What a link's creator is told about its identified readers (issue 44; docs/access.md, "Who
// reads"): with `notify`, a mail when a reader is first identified and opens it, and a summary
// when their reading ends (30 minutes without a beacon); and, for every link that identifies
// readers, the webhooks `reader.identified`, `share_link.opened` and `share_link.read` to the
// workspace's endpoints that asked for them (Standard Webhooks, as the others). All queued in
// the database (src/state/mailOutbox.ts, webhook_deliveries), never sent in a request: a mail
// server or endpoint away costs the reader nothing, and they go out when it comes back.
//
// Each mail and delivery names its reader (`ref`, `data.reader.id`), so erasing the reader
// (./readerErasure.ts) finds those not yet sent and takes the address out of them.
import { randomUUID } from 'node:crypto';
import { shownAddress } from '../domain/readerEmail.ts';
import { isUuid } from '../domain/uuid.ts';
import type { Logger } from '../log.ts';
import { findReaderFlipbook } from '../queries/reader.ts';
import type { Db } from '../readTables/readTable.ts';
import type { LinkByToken } from '../readTables/shareLinks.ts';
import { type ReaderRow, sweepReaderCodes, takeEndedReadings } from '../state/linkReaders.ts';
import { queueMail } from '../state/mailOutbox.ts';
import type { Store } from '../store/store.ts';
import type { Clock } from './clock.ts';
import { lookEvery } from './periodicLook.ts';
import { openEmail } from './readerIdentity.ts';

/** A reading ends after this long without a beacon (the reader sends one every few seconds). */
export const READING_ENDS_MS = 30 * 60_000;

export const READER_WEBHOOK_TYPES = [
  'reader.identified',
  'share_link.opened',
  'share_link.read',
] as const;

type AlertDeps = { store: Store; clock: Clock };

/** The link as alerts name it. */
type AlertLink = Pick<
  LinkByToken,
  'link_id' | 'flipbook_id' | 'workspace_id' | 'label' | 'notify' | 'created_by'
>;

/** The person a link's mails go to: its creator, else (a key with no person, gone) the owners. */
const recipientsOf = async (db: Db, link: AlertLink): Promise<string[]> => {
  const actor = (link.created_by ?? {}) as { type?: string; id?: string };
  const { rows } = await db.query<{ email: string }>(
    `SELECT u.email FROM users u
     WHERE u.workspace_id = $1 AND u.user_id = coalesce(
       CASE WHEN $2 = 'user' THEN $3::uuid END,
       (SELECT (k.created_by->>'id')::uuid FROM api_keys k
        WHERE $2 = 'api_key' AND k.key_id = $3::uuid AND k.created_by->>'type' = 'user'))`,
    [link.workspace_id, actor.type ?? '', isUuid(actor.id ?? '') ? actor.id : null],
  );
  if (rows.length > 0) return rows.map((r) => r.email);
  const owners = await db.query<{ email: string }>(
    `SELECT email FROM users WHERE workspace_id = $1 AND role = 'owner' ORDER BY created_at LIMIT 5`,
    [link.workspace_id],
  );
  return owners.rows.map((r) => r.email);
};

/** Queues a reader webhook for each of the workspace's endpoints that asked for its type. */
const queueReaderWebhook = (
  db: Db,
  workspaceId: string,
  type: (typeof READER_WEBHOOK_TYPES)[number],
  data: Record<string, unknown>,
  now: Date,
) =>
  db.query(
    `INSERT INTO webhook_deliveries (delivery_id, webhook_id, workspace_id, seq, type, payload,
       next_at, created_at)
     SELECT gen_random_uuid(), webhook_id, workspace_id, NULL, $2, $3, $4, $4
     FROM webhooks WHERE workspace_id = $1 AND enabled AND (events IS NULL OR $2 = ANY(events))`,
    [
      workspaceId,
      type,
      JSON.stringify({ type, timestamp: `${now.toISOString().slice(0, 19)}Z`, data }),
      now,
    ],
  );

const minutes = (seconds: number) =>
  seconds < 60 ? `${Math.round(seconds)} s` : `${Math.round(seconds / 60)} min`;

/** A reading's figures as webhooks and the API show them. */
export const readingOf = (row: ReaderRow) => ({
  read_seconds: Math.round(row.read_seconds),
  pages_seen: row.pages_seen.length,
  page_count: row.page_count,
  last_page: row.last_page,
  completed: row.page_count !== null && row.pages_seen.length >= row.page_count,
  downloads: row.downloads,
});

export const readerAlerts = (deps: AlertDeps) => {
  const db = deps.store.db;
  const about = async (link: AlertLink, readerId: string, address: string, verified?: boolean) => {
    const book = await findReaderFlipbook(db, link.flipbook_id);
    const email = shownAddress(address);
    return {
      title: book?.title ?? 'a flipbook',
      email,
      data: {
        reader: { id: readerId, email, ...(verified === undefined ? {} : { verified }) },
        share_link: { id: link.link_id, label: link.label },
        flipbook: { id: link.flipbook_id, title: book?.title ?? null },
      },
    };
  };
  const mail = async (link: AlertLink, readerId: string, subject: string, text: string) => {
    if (!link.notify) return;
    const now = deps.clock.now();
    for (const to of await recipientsOf(db, link)) {
      await queueMail(
        db,
        { to, subject, text, kind: 'link_alert', ref: readerId },
        now,
        randomUUID(),
      );
    }
  };
  return {
    identified: async (link: AlertLink, readerId: string, email: string, verified: boolean) => {
      const { data } = await about(link, readerId, email, verified);
      await queueReaderWebhook(db, link.workspace_id, 'reader.identified', data, deps.clock.now());
    },
    opened: async (link: AlertLink, readerId: string, address: string) => {
      const { title, email, data } = await about(link, readerId, address);
      const now = deps.clock.now();
      await queueReaderWebhook(db, link.workspace_id, 'share_link.opened', data, now);
      await mail(
        link,
        readerId,
        `${email} opened ${oneLine(title)}`,
        `${email} opened “${title}” through your link “${link.label}” at ${now.toISOString().slice(0, 16).replace('T', ' ')} UTC.\n\nA summary follows when they stop reading.\n`,
      );
    },
    /** A reading ended: its summary, from the reader's figures. */
    read: async (link: AlertLink, row: ReaderRow, address: string) => {
      const { title, email, data } = await about(link, row.reader_id, address);
      const reading = readingOf(row);
      await queueReaderWebhook(
        db,
        link.workspace_id,
        'share_link.read',
        { ...data, reading },
        deps.clock.now(),
      );
      const pages = row.page_count === null ? '' : ` of ${row.page_count}`;
      await mail(
        link,
        row.reader_id,
        `${email} read ${oneLine(title)}`,
        [
          `${email} read “${title}” through your link “${link.label}”.`,
          '',
          `Time read: ${minutes(reading.read_seconds)}`,
          `Pages seen: ${reading.pages_seen}${pages}${reading.completed ? ' (all)' : ''}`,
          `Last page: ${reading.last_page ?? '-'}`,
          `Downloaded: ${reading.downloads > 0 ? 'yes' : 'no'}`,
          '',
        ].join('\n'),
      );
    },
  };
};

/**
 * Sends the summaries of readings that ended (no beacon for READING_ENDS_MS): each taken once
 * by one daemon. Returns how many.
 */
export const sendEndedReadings = async (deps: AlertDeps) => {
  const db = deps.store.db;
  const ended = await takeEndedReadings(
    db,
    new Date(deps.clock.now().getTime() - READING_ENDS_MS),
    100,
  );
  for (const row of ended) {
    const link = (
      await db.query<AlertLink>(
        `SELECT link_id, flipbook_id, workspace_id, label, notify, created_by
         FROM share_links WHERE link_id = $1`,
        [row.link_id],
      )
    ).rows[0];
    const email =
      row.kid && row.email_ct ? await openEmail(deps, { kid: row.kid, ct: row.email_ct }) : null;
    if (link && email) await readerAlerts(deps).read(link, row, email);
  }
  return ended.length;
};

const oneLine = (text: string) => text.replace(/[\r\n\t]+/g, ' ').slice(0, 200);

/** How often ended readings are looked for: a summary is at most this late. */
const LOOK_MS = 60_000;

/**
 * Looks for ended readings every minute (and drops codes past their time): each summary is
 * taken by one daemon (SKIP LOCKED), so any number may look.
 */
export const startReadingSummaries = (deps: AlertDeps & { log: Logger }) =>
  lookEvery(
    LOOK_MS,
    async () => {
      while ((await sendEndedReadings(deps)) === 100) {}
      await sweepReaderCodes(deps.store.db, deps.clock.now());
    },
    (error) =>
      deps.log.warn({ err: error }, 'reading summaries: could not look; next minute again'),
  );
