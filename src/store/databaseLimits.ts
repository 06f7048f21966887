// Every use of the database is bounded, so a database that stops answering (a paused VM, a
// stalled disk, a partition without a reset, a server whose processes are stopped) gives its
// callers an error within seconds instead of a hang, and a request a 503 instead of nothing:
//
// - acquiring a connection, from the pool or a new one: `connectMs` (pg-pool's
//   connectionTimeoutMillis covers both the wait for a free connection and the connect);
// - each statement: the server cancels it after `statementMs` (statement_timeout, sent at
//   connect), and the client gives up one second later (the server may not be running at all);
//   a connection whose statement got no answer is destroyed, never reused: its session may be in
//   any state (inside a transaction a later caller would write into, or still running the
//   statement), and only closing it is sure to end that state;
// - dead peers: TCP keepalive on every connection;
// - sessions left idle inside a transaction are ended by the server.
//
// Long work that is meant to be long (migrations, replay, `audit verify`) runs on a connection of
// its own without the statement limits (`longWork`); everything else, the daemon's requests, the
// workers and the webhook sender, has the limits.
import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import pg from 'pg';
import type { DatabaseLimits } from './limits.ts';

export type { DatabaseLimits } from './limits.ts';
export { DEFAULT_DATABASE_TIMEOUT_S, databaseLimits } from './limits.ts';

/** After the server's own statement_timeout, the client waits this much more for its answer. */
const CLIENT_GRACE_MS = 1000;
/** How long closing a connection may wait for the server's goodbye. */
const END_GRACE_MS = 2000;
/** TCP keepalive probes start after this much silence on a connection. */
const KEEPALIVE_DELAY_MS = 10_000;
/** The server ends a session idle inside a transaction for this long (a client that vanished). */
const IDLE_IN_TRANSACTION_MS = 60_000;

/** The database gave no answer in time; the connection it was on has been closed. */
export class DatabaseTimeout extends Error {
  override name = 'DatabaseTimeout';
  readonly code = 'EDBTIMEOUT';
}

/**
 * A pg client whose statements get a client-side limit: past it the connection is destroyed, so
 * the statement and every one queued behind it fail at once with DatabaseTimeout, and the pool
 * drops the client when it is released (pg-pool drops clients that are no longer queryable).
 */
export class BoundedClient extends pg.Client {
  /** ms a statement may take before the connection is given up; null: no limit */
  limitMs: number | null;

  constructor(config: pg.ClientConfig & { limitMs?: number | null }) {
    super(config);
    this.limitMs = config.limitMs ?? null;
    // A connection that fails while checked out fails its statements (their callers hear of it);
    // the event itself must not reach the process as an unhandled 'error'.
    this.on('error', () => {});
  }

  // biome-ignore lint/suspicious/noExplicitAny: pg's end() has two forms, passed through as they are
  override end(...args: any[]): any {
    // A server that stopped answering never acknowledges the goodbye, and the half-closed socket
    // would keep the process from exiting: a few seconds, then it is cut.
    setTimeout(() => streamOf(this)?.destroy(), END_GRACE_MS).unref();
    return (pg.Client.prototype.end as (...a: unknown[]) => unknown).apply(this, args);
  }

  // biome-ignore lint/suspicious/noExplicitAny: pg's query() has a dozen overloads, passed through as they are
  override query(...args: any[]): any {
    const run = () => (pg.Client.prototype.query as (...a: unknown[]) => unknown).apply(this, args);
    if (this.limitMs === null) return run();
    const last = args.at(-1);
    const callback =
      typeof last === 'function' ? (last as (e: unknown, r?: unknown) => void) : null;
    // Within a request, what is left of its budget bounds the statement too.
    const spending = requestBudget.getStore();
    const left = spending ? spending.limitMs - spending.spentMs : Number.POSITIVE_INFINITY;
    if (left <= 0) {
      const error = new DatabaseTimeout(
        `The database gave no answer within this request's ${seconds(spending?.limitMs ?? 0)} s`,
      );
      if (callback) return void process.nextTick(callback, error);
      return Promise.reject(error);
    }
    const limit = Math.min(this.limitMs, left);
    const started = performance.now();
    const timer = setTimeout(() => {
      streamOf(this)?.destroy(
        new DatabaseTimeout(`The database gave no answer within ${seconds(limit)} s`),
      );
    }, limit);
    const done = () => {
      clearTimeout(timer);
      if (spending) spending.spentMs += performance.now() - started;
    };
    if (callback) {
      args[args.length - 1] = (error: unknown, result: unknown) => {
        done();
        callback(error, result);
      };
      return run();
    }
    const result = run() as { then?: (a: () => void, b: () => void) => unknown } | undefined;
    // The promise form (what pg-pool, Emmett and our queries use); anything else is unbounded.
    if (typeof result?.then === 'function') result.then(done, done);
    else done();
    return result;
  }
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;

/**
 * A request's budget of database time: every statement it runs (awaited one after another or
 * not) spends from it, and past it the next statement fails at once, a DatabaseTimeout (a 503).
 * So a database that answers, but too slowly for the request's many statements to finish in the
 * documented bound, is a 503 too, not a 200 after a minute.
 */
const requestBudget = new AsyncLocalStorage<{ limitMs: number; spentMs: number }>();

/**
 * A pool whose callbacks run in their caller's context: pg-pool hands a waiting caller its client
 * from whatever released one (another request, a worker), and `pool.query` goes on in that
 * callback, so without this a request's statements could be charged to another's budget, or to
 * none.
 */
export const keepingContext = (pool: pg.Pool): pg.Pool => {
  const connect = pool.connect.bind(pool) as (callback?: unknown) => unknown;
  pool.connect = ((callback?: (...args: unknown[]) => void) =>
    callback ? connect(AsyncResource.bind(callback)) : connect()) as typeof pool.connect;
  return pool;
};

/** A request's database time for a statement limit: 1.8 times it (9 s for the default 5 s). */
export const requestBudgetMs = (statementMs: number) => Math.round(statementMs * 1.8);

/** Runs `fn` (a request's handling) with `limitMs` of database time to spend. */
export const withDatabaseBudget = <T>(limitMs: number, fn: () => T): T =>
  requestBudget.run({ limitMs, spentMs: 0 }, fn);

/**
 * Runs `fn` outside the request's budget: waiting for a lock another process holds is waiting
 * for that process, not for a database that does not answer (it has its own bound).
 */
export const outsideDatabaseBudget = <T>(fn: () => T): T => requestBudget.exit(fn);

/** A pool's configuration with the limits (at least 2 connections; see openStore). */
export const poolConfig = (
  connectionString: string,
  limits: DatabaseLimits,
  max: number,
): pg.PoolConfig & { limitMs: number | null } => ({
  connectionString,
  max,
  connectionTimeoutMillis: limits.connectMs,
  keepAlive: true,
  keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
  application_name: 'flipbook',
  idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
  ...(limits.statementMs === null ? {} : { statement_timeout: limits.statementMs }),
  Client: BoundedClient as unknown as typeof pg.Client,
  limitMs: limits.statementMs === null ? null : limits.statementMs + CLIENT_GRACE_MS,
});

/**
 * Runs long work (a migration, a replay, an audit) on a connection of the pool with no statement
 * limit, server side or client side. The connection is closed afterwards rather than returned:
 * its session was changed.
 */
export const longWork = async <T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> => {
  const client = await pool.connect();
  (client as unknown as BoundedClient).limitMs = null;
  let failed: Error | undefined;
  try {
    await client.query('SET statement_timeout = 0');
    return await work(client);
  } catch (error) {
    failed = error as Error;
    throw error;
  } finally {
    client.release(failed ?? true);
  }
};

/**
 * Whether a new connection can be opened and answers now (readiness): a pool's open connections
 * may still work while the server refuses new ones (max_connections reached), or the reverse.
 */
export const probeDatabase = async (connectionString: string, limits: DatabaseLimits) => {
  const { Client: _, limitMs, ...config } = poolConfig(connectionString, limits, 1);
  const client = new BoundedClient({ ...config, limitMs: limitMs ?? limits.connectMs });
  try {
    await client.connect();
    // A standby after a failover, or a database made read-only (its disk full): it answers, but
    // takes no write, so the daemon cannot do its work.
    const { rows }: { rows: { standby: boolean; read_only: string }[] } = await client.query(
      "SELECT pg_is_in_recovery() AS standby, current_setting('transaction_read_only') AS read_only",
    );
    if (rows[0]?.standby || rows[0]?.read_only === 'on')
      throw new Error('the database is read-only');
  } finally {
    // Not awaited: a server that stopped answering never acknowledges the goodbye (end() cuts
    // the socket after a few seconds).
    client.end().catch(() => {});
  }
};

const streamOf = (client: pg.Client) =>
  (client as unknown as { connection?: { stream?: { destroy(error?: Error): void } } }).connection
    ?.stream;
