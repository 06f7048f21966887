// Whether an error means the database cannot serve us right now (and a retry later may work), as
// opposed to a broken query or a broken rule: down, restarting, unreachable, not answering in
// time, out of connections, memory or disk. Callers answer those with 503 and Retry-After.
import { AppError } from '../domain/errors.ts';
import { networkReason } from '../waitAtStart.ts';

/**
 * SQLSTATEs by class (PostgreSQL's appendix A): 08 connection exception; 53 insufficient resources
 * (53000, disk full 53100, out of memory 53200, too many connections 53300, configuration limit
 * 53400); 57P operator intervention (shutting down, crash shutdown, cannot connect now, database
 * dropped, idle session timeout); 57014 a statement cancelled (our statement_timeout); 58 system
 * error (I/O error 58030); 55P03 a lock not available in time; 25P03 the server ended a session
 * idle in a transaction; 25006 a read-only transaction (a standby after a failover, a managed
 * database gone read-only when its disk filled); 40001 and 40P01 a serialization failure or a
 * deadlock the server broke (the same request can simply be sent again).
 */
const UNAVAILABLE_SQLSTATES = /^(08|53|57P|58)|^(57014|55P03|25P03|25006|40001|40P01)$/;
/** 55000 is many things; this one is a database that takes no connections now (ALLOW_CONNECTIONS). */
const NOT_ACCEPTING = /is not currently accepting connections/i;

/** What the socket under a connection says when the server is away or unreachable. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  // The name does not resolve: a DNS outage, or a container not yet (or no longer) registered.
  'ENOTFOUND',
  'EDBTIMEOUT', // DatabaseTimeout (databaseLimits.ts)
]);

/** pg's and pg-pool's own words for a connection that is gone or could not be had in time. */
const CLIENT_MESSAGES =
  /Connection terminated|terminating connection|timeout exceeded when trying to connect|is not queryable|Query read timeout|the database system is (starting up|shutting down|in recovery mode)/i;

export const isDatabaseUnavailable = (error: unknown, depth = 0): boolean => {
  const e = error as { code?: unknown; message?: unknown; cause?: unknown } | null;
  if (!e || typeof e !== 'object' || depth > 4) return false;
  // An answer already (the blob store's own failure, whose cause may be a refused connection to
  // the bucket): not the database's.
  if (error instanceof AppError) return false;
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : '';
  if (UNAVAILABLE_SQLSTATES.test(code) || NETWORK_CODES.has(code)) return true;
  if (code === '55000' && NOT_ACCEPTING.test(message)) return true;
  if (CLIENT_MESSAGES.test(message)) return true;
  // Emmett and dumbo sometimes wrap the driver's error.
  return e.cause !== undefined && isDatabaseUnavailable(e.cause, depth + 1);
};

/**
 * Why the database cannot be had, in words, when waiting may mend it (it is unavailable, as
 * above); null for what waiting cannot mend (a wrong password, a database that does not exist).
 */
export const unavailableReason = (error: unknown, connectMs: number): string | null => {
  if (!isDatabaseUnavailable(error)) return null;
  const { code, message } = codeAndMessage(error);
  if (code === 'EDBTIMEOUT' || code === 'ETIMEDOUT' || /timeout/i.test(message)) {
    return `no answer within ${connectMs / 1000} s`;
  }
  if (code === '57P03') return 'it is starting up';
  if (code === '53300') return 'it has no free connection (too many clients)';
  return (
    networkReason(code) ??
    (/Connection terminated/i.test(message) ? 'the connection was closed' : message)
  );
};

/** The first code and all the words along the error's causes (Emmett, dumbo and pg wrap). */
const codeAndMessage = (error: unknown): { code: string; message: string } => {
  let code = '';
  const words: string[] = [];
  let e = error as { code?: unknown; message?: unknown; cause?: unknown } | null;
  for (let depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    if (!code && typeof e.code === 'string') code = e.code;
    if (typeof e.message === 'string') words.push(e.message);
    e = e.cause as typeof e;
  }
  return { code, message: words.join(': ') || String(error) };
};
