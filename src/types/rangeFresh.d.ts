// The part of jshttp's range-parser 1.3 and fresh 2.0 that src/http/files.ts uses (neither ships
// types; these are their documented signatures).
declare module 'range-parser' {
  type Range = { start: number; end: number };
  /** -1: unsatisfiable; -2: malformed; otherwise the ranges, `type` the unit before `=`. */
  export default function rangeParser(
    size: number,
    header: string,
    options?: { combine?: boolean },
  ): -1 | -2 | (Range[] & { type: string });
}

declare module 'fresh' {
  /** Whether a cached response with `resHeaders` still answers a request with `reqHeaders`. */
  export default function fresh(
    reqHeaders: Record<string, string | string[] | undefined>,
    resHeaders: Record<string, string | undefined>,
  ): boolean;
}
