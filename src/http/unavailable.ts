// Failures of what the service stands on, as a client should hear them: not a 500 (nothing is
// wrong with the request or, as such, with the code) but a 503 with Retry-After, since they pass:
// a database restarting, unreachable, not answering in time or out of connections, a disk that
// turned read-only or failed.
import { AppError } from '../domain/errors.ts';
import { isDatabaseUnavailable } from '../store/unavailable.ts';

export class ServiceUnavailable extends AppError {
  override name = 'ServiceUnavailable';
  constructor(message: string) {
    super(503, message, { 'Retry-After': '5' });
  }
}

export const DATABASE_UNAVAILABLE = 'The database is unavailable right now; try again shortly';

export const asUnavailable = (error: unknown): ServiceUnavailable | null => {
  if (error instanceof ServiceUnavailable) return error;
  // An answer already (the blob store's own 503, a broken rule), whatever caused it.
  if (error instanceof AppError) return null;
  if (isDatabaseUnavailable(error)) return new ServiceUnavailable(DATABASE_UNAVAILABLE);
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'EROFS' || code === 'EIO') {
    return new ServiceUnavailable('The server cannot store files right now; try again shortly');
  }
  return null;
};
