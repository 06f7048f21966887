// SQL fragments shared by the read tables.

/** A timestamptz column as RFC 3339 UTC text (seconds precision), named as the column. */
export const utc = (column: string, alias = column) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS ${alias}`;
