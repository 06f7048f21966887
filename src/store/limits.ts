// The bounds on every use of the database (see databaseLimits.ts, which applies them): apart,
// so the command line reads --database-timeout without loading the driver.

export type DatabaseLimits = {
  /** waiting for a connection from the pool, and opening a new one */
  connectMs: number;
  /** each statement, server side; the client gives up a second later. null: no limit */
  statementMs: number | null;
};

/** `serve --database-timeout` and `worker --database-timeout`, in seconds, unless told. */
export const DEFAULT_DATABASE_TIMEOUT_S = 5;

export const databaseLimits = (timeoutSeconds = DEFAULT_DATABASE_TIMEOUT_S): DatabaseLimits => ({
  connectMs: timeoutSeconds * 1000,
  statementMs: timeoutSeconds * 1000,
});
