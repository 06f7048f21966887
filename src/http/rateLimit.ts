// Rate limiting per client IP over every /api/v1 request (401s included), in fixed one-minute
// windows counted in PostgreSQL, so several daemons on one database share one limit.
// Answers carry the IETF RateLimit headers (draft-ietf-httpapi-ratelimit-headers), both the
// current `RateLimit`/`RateLimit-Policy` fields and the older `RateLimit-Limit/-Remaining/-Reset`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Clock, systemClock } from '../app/clock.ts';
import { AppError } from '../domain/errors.ts';
import type { Db } from '../readTables/readTable.ts';

export const WINDOW_SECONDS = 60;
/** Requests per window per client IP unless `serve --rate-limit` says otherwise. */
export const DEFAULT_RATE_LIMIT = 120;

export class TooManyRequests extends AppError {
  override name = 'TooManyRequests';
  constructor(limit: number) {
    super(429, `Rate limit exceeded: ${limit} requests per minute`);
  }
}

export type RateLimiter = {
  check: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
};

export const createRateLimiter = (
  db: Db,
  options: { limit: number; trustProxy: boolean; clock?: Clock },
): RateLimiter => {
  let lastSweep = 0;
  return {
    check: async (req, res) => {
      if (options.limit <= 0) return;
      // The window by the shared clock: every daemon counts a client in the same minute.
      const nowSeconds = Math.floor((options.clock ?? systemClock).now().getTime() / 1000);
      const windowStart = nowSeconds - (nowSeconds % WINDOW_SECONDS);
      // Prepared (parsed once per connection) and into an unlogged table (no WAL flush to wait
      // for): it runs on every API request. See src/store/schema.ts.
      const { rows } = await db.query<{ hits: number }>(
        {
          name: 'rate-limit-hit',
          text: `INSERT INTO rate_limits (client, window_start, hits) VALUES ($1, $2, 1)
           ON CONFLICT (client, window_start) DO UPDATE SET hits = rate_limits.hits + 1
           RETURNING hits`,
        },
        [clientAddress(req, options.trustProxy), windowStart],
      );
      const hits = rows[0]?.hits ?? 1;
      const reset = windowStart + WINDOW_SECONDS - nowSeconds;
      const remaining = Math.max(0, options.limit - hits);
      res.setHeader('RateLimit-Policy', `"per-ip";q=${options.limit};w=${WINDOW_SECONDS}`);
      res.setHeader('RateLimit', `"per-ip";r=${remaining};t=${reset}`);
      res.setHeader('RateLimit-Limit', String(options.limit));
      res.setHeader('RateLimit-Remaining', String(remaining));
      res.setHeader('RateLimit-Reset', String(reset));
      if (nowSeconds - lastSweep > WINDOW_SECONDS) {
        lastSweep = nowSeconds;
        db.query('DELETE FROM rate_limits WHERE window_start < $1', [
          windowStart - WINDOW_SECONDS,
        ]).catch(() => {});
      }
      if (hits > options.limit) {
        res.setHeader('Retry-After', String(reset));
        throw new TooManyRequests(options.limit);
      }
    },
  };
};

/**
 * The client's address. X-Forwarded-For is trusted only with --trust-proxy, and then only its
 * last entry: the address our own proxy saw, which a client cannot forge.
 */
export const clientAddress = (req: IncomingMessage, trustProxy: boolean) => {
  if (trustProxy) {
    const forwarded = req.headers['x-forwarded-for'];
    const last = (Array.isArray(forwarded) ? forwarded.join(',') : forwarded)
      ?.split(',')
      .at(-1)
      ?.trim();
    if (last) return last;
  }
  return req.socket.remoteAddress ?? 'unknown';
};
