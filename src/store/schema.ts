// Creates or migrates everything the service keeps in PostgreSQL. Several daemons may start at
// once on one database: a session advisory lock makes them take turns, and every statement is
// idempotent, so the last one in finds nothing left to do.
import type { PostgresEventStore } from '@event-driven-io/emmett-postgresql';
import type pg from 'pg';
import { READ_MODEL_VERSION, readTables } from '../readTables/index.ts';
import { SHARE_LINK_STATE_DDL } from '../readTables/shareLinks.ts';
import { ACCOUNTS_DDL } from '../state/accounts.ts';
import { ANALYTICS_DDL } from '../state/analytics.ts';
import { ANALYTICS_SALTS_DDL } from '../state/analyticsSalts.ts';
import { AUDIT_DDL, chainExisting, chainStarted } from '../state/auditChain.ts';
import { EVENT_FEED_DDL, indexExistingFeed } from '../state/eventFeed.ts';
import { KEY_USAGE_DDL } from '../state/keyUsage.ts';
import { LINK_READERS_DDL } from '../state/linkReaders.ts';
import { MAIL_OUTBOX_DDL } from '../state/mailOutbox.ts';
import { PASSKEY_STATE_DDL } from '../state/passkeyState.ts';
import { READER_KEYS_DDL } from '../state/readerKeys.ts';
import { RENDITION_FILLS_DDL } from '../state/renditionFills.ts';
import { SSO_STATE_DDL } from '../state/ssoState.ts';
import { TILE_CACHE_DDL } from '../state/tileCache.ts';
import { guardReadTables, recordSchemaVersion, refuseNewerDatabase } from './releaseGuard.ts';
import { rebuildReadTables } from './replay.ts';

/**
 * Rate-limit counters, shared by every daemon on the database (see src/http/rateLimit.ts).
 * Unlogged: every API request writes here, and a write that skips the WAL commits without waiting
 * for a disk flush; a crash empties the table, which only forgives the current minute's hits.
 */
const OPERATIONAL_DDL = `CREATE UNLOGGED TABLE IF NOT EXISTS rate_limits (
  client TEXT NOT NULL,
  window_start BIGINT NOT NULL,
  hits INT NOT NULL,
  PRIMARY KEY (client, window_start)
);
DO $$ BEGIN
  IF (SELECT relpersistence FROM pg_class WHERE oid = 'rate_limits'::regclass) = 'p' THEN
    ALTER TABLE rate_limits SET UNLOGGED;
  END IF;
END $$`;

const MIGRATION_LOCK = 727_001; // an arbitrary constant shared by every flipbook process

export const migrate = async (client: pg.PoolClient, events: PostgresEventStore) => {
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    // Before anything is written: a newer release's database is left as it is.
    await refuseNewerDatabase(client);
    await events.schema.migrate();
    await client.query(
      'CREATE TABLE IF NOT EXISTS flipbook_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)',
    );
    // Not projections: state that is not derived from events and survives replays.
    await client.query(OPERATIONAL_DDL);
    await client.query(KEY_USAGE_DDL);
    await client.query(RENDITION_FILLS_DDL);
    await client.query(TILE_CACHE_DDL);
    await client.query(ACCOUNTS_DDL);
    await client.query(PASSKEY_STATE_DDL);
    await client.query(READER_KEYS_DDL);
    await client.query(LINK_READERS_DDL);
    await client.query(SHARE_LINK_STATE_DDL);
    await client.query(SSO_STATE_DDL);
    await client.query(ANALYTICS_SALTS_DDL);
    await client.query(ANALYTICS_DDL);
    // The mail outbox (src/state/mailOutbox.ts, docs/deploy.md "Mail").
    await client.query(MAIL_OUTBOX_DDL);
    // The audit chain, started over the events already there the first time (docs/audit.md).
    await client.query(AUDIT_DDL);
    if (!(await chainStarted(client))) {
      // All or nothing: a start that dies halfway leaves no partial chain for the next to trip on.
      await client.query('BEGIN');
      try {
        await chainExisting(client);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    }
    // The event feed and the webhooks' outbox (docs/webhooks.md), indexed over the chain so far
    // the first time.
    await client.query(EVENT_FEED_DDL);
    await indexExistingFeed(client);
    const stored = await client.query<{ value: string }>(
      "SELECT value FROM flipbook_meta WHERE key = 'read_model_version'",
    );
    const version = stored.rows[0]?.value;
    if (version === undefined) {
      // A new database (or one from before versioning): create the tables, then fill them from
      // whatever events exist, which is nothing on a new database.
      await rebuildReadTables(client);
    } else if (version !== String(READ_MODEL_VERSION)) {
      await rebuildReadTables(client);
    } else {
      for (const table of readTables) await client.query(table.ddl);
      await guardReadTables(client);
    }
    await recordSchemaVersion(client);
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
  }
};
