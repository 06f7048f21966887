// Verifying the audit chain and cutting checkpoints (docs/audit.md). Verification recomputes every
// link from the events as stored and stops at the first one that does not hold; with a checkpoint
// (a chain head kept outside the database) it also proves that everything the checkpoint covered
// is still there, unchanged: a whole deleted stream, re-chained by someone with the database in
// hand, still fails it.

import { chainHash, entryOf, GENESIS } from '../audit/chainHash.ts';
import type { Db } from '../readTables/readTable.ts';
import {
  type ChainRow,
  chainBatch,
  chainHead,
  chainTablesExist,
  unchainedEvent,
} from '../state/auditChain.ts';
import type { Store } from '../store/store.ts';

export type Checkpoint = { version: 1; seq: number; hash: string; at: string };

export type BadEvent = {
  /** the link's number in the chain (1 = the first event ever recorded) */
  seq: number | null;
  stream: string;
  /** the flipbook (or workspace) id the stream belongs to */
  id: string;
  position: number;
  problem: string;
};

export type Verification =
  | { intact: true; events: number; head: { seq: number; hash: string }; checkpoint: boolean }
  | { intact: false; events: number; first: BadEvent };

const BATCH = 1000;

const idOf = (stream: string) => stream.replace(/^(flipbook|workspace)-/, '');

const bad = (seq: number | null, stream: string, position: number, problem: string): BadEvent => ({
  seq,
  stream,
  id: idOf(stream),
  position,
  problem,
});

export const cutCheckpoint = async (store: Store, now: Date): Promise<Checkpoint> => {
  const head = await chainHead(store.db);
  return {
    version: 1,
    seq: Number(head?.seq ?? 0),
    hash: head?.hash ?? GENESIS,
    at: now.toISOString(),
  };
};

/** Parses a checkpoint document, or says what is wrong with it. */
export const parseCheckpoint = (text: string): Checkpoint => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('the checkpoint is not JSON');
  }
  const c = value as Partial<Checkpoint>;
  if (
    c?.version !== 1 ||
    !Number.isSafeInteger(c.seq) ||
    (c.seq ?? -1) < 0 ||
    typeof c.hash !== 'string' ||
    !/^[0-9a-f]{64}$/.test(c.hash)
  ) {
    throw new Error('not a flipbook audit checkpoint (version 1, seq, hash)');
  }
  return { version: 1, seq: c.seq as number, hash: c.hash, at: String(c.at ?? '') };
};

/**
 * Reads the whole log and chain in one REPEATABLE READ snapshot, so appends committed by a
 * running daemon meanwhile are simply not seen (not mistaken for a broken head), and changes
 * nothing in the database.
 */
export const verifyChain = async (store: Store, checkpoint?: Checkpoint): Promise<Verification> => {
  const client = await store.pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    if (!(await chainTablesExist(client))) {
      return fail(0, bad(null, '', 0, 'there is no audit chain in this database'));
    }
    return await verifyIn(client, checkpoint);
  } finally {
    await client.query('ROLLBACK').catch(() => {});
    client.release();
  }
};

const verifyIn = async (db: Db, checkpoint?: Checkpoint): Promise<Verification> => {
  let previous = GENESIS;
  let expectedSeq = 1n;
  let checkpointMet = checkpoint === undefined || checkpoint.seq === 0;
  if (checkpoint?.seq === 0 && checkpoint.hash !== GENESIS) {
    return fail(0, bad(0, '', 0, 'the checkpoint does not start from the beginning of the chain'));
  }
  for (;;) {
    const rows: ChainRow[] = await chainBatch(db, expectedSeq - 1n, BATCH);
    for (const row of rows) {
      const seq = Number(row.seq);
      const position = Number(row.link_position);
      if (BigInt(row.seq) !== expectedSeq) {
        return fail(
          seq - 1,
          bad(Number(expectedSeq), row.link_stream, position, 'a link of the chain is missing'),
        );
      }
      if (!row.found) {
        return fail(seq - 1, bad(seq, row.link_stream, position, 'the event was deleted'));
      }
      if (row.message_kind !== 'E' || row.is_archived) {
        return fail(
          seq - 1,
          bad(seq, row.link_stream, position, 'the event was turned into another kind or archived'),
        );
      }
      const hash = chainHash(previous, entryOf(row));
      if (hash !== row.hash) {
        return fail(
          seq - 1,
          bad(seq, row.link_stream, position, 'the event was changed (its hash does not match)'),
        );
      }
      if (checkpoint && seq === checkpoint.seq) {
        if (hash !== checkpoint.hash) {
          return fail(
            seq - 1,
            bad(
              seq,
              row.link_stream,
              position,
              'the log does not match the checkpoint: events it covered were changed, reordered or removed',
            ),
          );
        }
        checkpointMet = true;
      }
      previous = hash;
      expectedSeq++;
    }
    if (rows.length < BATCH) break;
  }
  const events = Number(expectedSeq - 1n);
  if (!checkpointMet) {
    return fail(
      events,
      bad(
        null,
        '',
        0,
        `the chain has ${events} events, fewer than the ${checkpoint?.seq} the checkpoint covered: events were removed (or the checkpoint is from another database)`,
      ),
    );
  }
  const head = await chainHead(db);
  if (!head || Number(head.seq) !== events || head.hash !== previous) {
    return fail(events, bad(null, '', 0, 'the chain head does not match its last link'));
  }
  const stray = await unchainedEvent(db);
  if (stray) {
    return fail(
      events,
      bad(
        null,
        stray.stream_id,
        Number(stray.stream_position),
        'the event is not in the chain: it was written around the service',
      ),
    );
  }
  return {
    intact: true,
    events,
    head: { seq: events, hash: previous },
    checkpoint: checkpoint !== undefined,
  };
};

const fail = (events: number, first: BadEvent): Verification => ({ intact: false, events, first });
