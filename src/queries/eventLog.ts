// Reading the event log itself (not a read table): one stream by position, a workspace's events
// across its streams, and the whole log in chain order for export. Every event's data carries its
// workspaceId, so a workspace's trail needs no index of streams.
import type { Db } from '../readTables/readTable.ts';

export type LoggedRow = {
  stream: string;
  position: number;
  id: string;
  type: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  /** when the store recorded it (the data's occurredAt is when the service decided it) */
  recorded: string;
};

const COLUMNS = `m.stream_id AS stream, m.stream_position::int AS position, m.message_id AS id,
  m.message_type AS type, m.message_data AS data, m.message_metadata AS metadata,
  to_char(m.created AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS recorded`;

/** Events `first`..`first + limit - 1` of a stream (positions start at 1). */
export const streamEvents = async (db: Db, stream: string, first: number, limit: number) =>
  (
    await db.query<LoggedRow>(
      `SELECT ${COLUMNS} FROM emt_messages m
       WHERE m.stream_id = $1 AND m.stream_position >= $2 AND m.stream_position < $3
         AND m.message_kind = 'E' AND NOT m.is_archived
       ORDER BY m.stream_position`,
      [stream, first, first + limit],
    )
  ).rows;

/**
 * A stream's events as a decision needs them: page lists left out (in the database, `- 'pages'`),
 * since no decider looks at them and they are most of a long-lived flipbook's bytes. The version
 * is the last position read, for the append's optimistic check.
 */
export const decisionEvents = async (db: Db, stream: string) => {
  const { rows } = await db.query<{
    type: string;
    data: Record<string, unknown>;
    position: string;
  }>(
    `SELECT message_type AS type, message_data - 'pages' AS data, stream_position::text AS position
     FROM emt_messages WHERE stream_id = $1 AND message_kind = 'E' AND NOT is_archived
     ORDER BY stream_position`,
    [stream],
  );
  return {
    events: rows.map(({ type, data }) => ({ type, data })),
    version: BigInt(rows.at(-1)?.position ?? 0),
  };
};

/** How many events the stream holds (0: no such stream). */
export const streamLength = async (db: Db, stream: string) =>
  Number(
    (
      await db.query<{ n: string }>(
        `SELECT coalesce(max(stream_position), 0)::text AS n FROM emt_messages
         WHERE stream_id = $1 AND NOT is_archived`,
        [stream],
      )
    ).rows[0]?.n ?? 0,
  );

export type TrailFilter = {
  workspaceId: string;
  since: Date | null;
  until: Date | null;
  /** an actor's id (a key id, an admin name, a worker's host:pid) */
  actor: string | null;
};

/** A workspace's events across all its streams, in log order, after `afterGlobal`. */
export const workspaceEvents = async (db: Db, f: TrailFilter, afterGlobal: string, limit: number) =>
  (
    await db.query<LoggedRow & { global: string }>(
      `SELECT ${COLUMNS}, m.global_position::text AS global FROM emt_messages m
       WHERE m.message_data->>'workspaceId' = $1 AND m.message_kind = 'E' AND NOT m.is_archived
         AND ($2::timestamptz IS NULL OR (m.message_data->>'occurredAt')::timestamptz >= $2)
         AND ($3::timestamptz IS NULL OR (m.message_data->>'occurredAt')::timestamptz <= $3)
         AND ($4::text IS NULL OR m.message_metadata->'actor'->>'id' = $4)
         AND m.global_position > $5::bigint
       ORDER BY m.global_position LIMIT $6`,
      [f.workspaceId, f.since, f.until, f.actor, afterGlobal, limit],
    )
  ).rows;

/** The whole log in chain order, with each link's hash (for `flipbook audit export`). */
export const chainedEvents = async (db: Db, afterSeq: string, limit: number) =>
  (
    await db.query<LoggedRow & { seq: string; hash: string }>(
      `SELECT ${COLUMNS}, c.seq::text AS seq, c.hash FROM audit_chain c
       JOIN emt_messages m ON m.stream_id = c.stream_id AND m.stream_position = c.stream_position
         AND NOT m.is_archived
       WHERE c.seq > $1::bigint ORDER BY c.seq LIMIT $2`,
      [afterSeq, limit],
    )
  ).rows;
