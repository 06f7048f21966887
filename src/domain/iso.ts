/** RFC 3339 UTC with milliseconds: how every event records time. */
export const iso = (d: Date) => d.toISOString();
