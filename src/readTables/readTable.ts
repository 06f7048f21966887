// What every read table in this folder provides. Tables are inline projections: `apply` runs in
// the transaction of the append that produced the event, so a read right after a write sees it,
// and a failing `apply` rolls the append back. `replay` drops and rebuilds them from the events.
import type { FlipbookEvent } from '../domain/flipbook/flipbook.ts';
import type { UserEvent } from '../domain/user/user.ts';
import type { WorkspaceEvent } from '../domain/workspace/workspace.ts';

/** An event as a projection sees it: with its stored metadata (who, and Emmett's messageId). */
export type DomainEvent = (WorkspaceEvent | FlipbookEvent | UserEvent) & {
  metadata?: Record<string, unknown>;
};

/** Who appended the event (its metadata's actor), for the rows that say who made them. */
export const actorOf = (event: DomainEvent) => event.metadata?.actor ?? null;

/**
 * A named statement (pg's prepared statement): PostgreSQL parses it once per connection (and
 * plans it once, when its generic plan is as good). For the statements every request runs.
 */
export type Prepared = { name: string; text: string };

/** The part of a pg client or pool the projections use: parameterised queries only. */
export type Db = {
  query: <Row extends Record<string, unknown> = Record<string, unknown>>(
    text: string | Prepared,
    values?: unknown[],
  ) => Promise<{ rows: Row[]; rowCount: number | null }>;
};

export type ReadTable = {
  table: string;
  /** idempotent DDL, run on every start */
  ddl: string;
  handles: DomainEvent['type'][];
  apply: (db: Db, event: DomainEvent) => Promise<void>;
};
