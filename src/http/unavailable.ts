// Failures of what the service stands on, as a client should hear them: not a 500 (nothing is
// wrong with the request or, as such, with the code) but a 503 with Retry-After, since they pass:
// a database restarting or unreachable, a disk that turned read-only or failed.
import { AppError } from '../domain/errors.ts';

export class ServiceUnavailable extends AppError {
  override name = 'ServiceUnavailable';
  constructor(message: string) {
    super(503, message, { 'Retry-After': '5' });
  }
}

/** PostgreSQL's "connection exception" and "operator intervention" classes (08xxx, 57Pxx). */
const DATABASE_CODES = /^(08|57P)/;
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH']);

export const asUnavailable = (error: unknown): ServiceUnavailable | null => {
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : '';
  if (
    DATABASE_CODES.test(code) ||
    NETWORK_CODES.has(code) ||
    /Connection terminated|terminating connection|timeout exceeded when trying to connect/i.test(
      message,
    )
  ) {
    return new ServiceUnavailable('The database is unavailable right now; try again shortly');
  }
  if (code === 'EROFS' || code === 'EIO') {
    return new ServiceUnavailable('The server cannot store files right now; try again shortly');
  }
  return null;
};
