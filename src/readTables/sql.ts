// SQL fragments and parameters shared by the read tables.

/** A timestamptz column as RFC 3339 UTC text (seconds precision), named as the column. */
export const utc = (column: string, alias = column) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS ${alias}`;

/**
 * A field an edit event may leave out, as the two parameters of `CASE WHEN $n THEN $m ELSE column
 * END`: whether the event names it (null included: a value, "none"), and its value.
 */
export const ifGiven = (value: unknown) => [value !== undefined, value ?? null];
