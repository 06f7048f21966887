// Results go to stdout: one JSON document with --json, otherwise aligned plain columns.

/**
 * Text from the server or the log, made safe for a terminal: control characters (an escape
 * sequence in a title could rewrite the screen, a newline forge a line) shown as \u{..}.
 */
export const safe = (value: unknown) =>
  String(value).replace(/\p{Cc}/gu, (c) => `\\u{${(c.codePointAt(0) ?? 0).toString(16)}}`);

export const printJson = (value: unknown) => {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
};

export const printTable = (rows: Record<string, unknown>[], columns: string[]) => {
  if (rows.length === 0) {
    process.stdout.write('(none)\n');
    return;
  }
  const cell = (value: unknown) => (value === null || value === undefined ? '-' : safe(value));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]) =>
    `${values
      .map((v, i) => v.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd()}\n`;
  process.stdout.write(line(columns.map((c) => c.toUpperCase())));
  for (const row of rows) process.stdout.write(line(columns.map((c) => cell(row[c]))));
};

/** A time read, for people: `45 s`, `3 min 20 s`, `1.5 h`. */
export const duration = (seconds: number) => {
  const s = Math.round(seconds);
  return s < 60
    ? `${s} s`
    : s < 3600
      ? `${Math.floor(s / 60)} min ${s % 60} s`
      : `${(s / 3600).toFixed(1)} h`;
};
