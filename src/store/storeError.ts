/** A problem with the store itself (cannot start, cannot connect), as opposed to a broken rule. */
export class StoreError extends Error {
  override name = 'StoreError';
}

/** The exit code of a command refused by DatabaseTooNew (sysexits' EX_CONFIG). */
export const DATABASE_TOO_NEW_EXIT = 78;

/** A newer release has migrated the database (./releaseGuard.ts): nothing was changed. */
export class DatabaseTooNew extends StoreError {
  override name = 'DatabaseTooNew';
}
