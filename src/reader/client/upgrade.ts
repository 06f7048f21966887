// Images that stand in for the ones asked for, and asking again for those: the server answers a
// tile or a largest image that is not there within a second with the page's best image already
// there (src/app/pageTiles.ts, src/http/files.ts), and a refusal (503) when there is none. The
// reader keeps what it shows and asks again, a few times, each time later; then it stops, so a
// page that never gets its tiles costs a bounded number of requests, never a request a second.
// Pure: the DOM's part is in main.ts and stage.ts.

/** The waits before each new ask (ms): about a minute in all, then no more. */
export const RETRY_DELAYS_MS = [1_000, 2_000, 4_000, 8_000, 16_000, 32_000] as const;

/** A tile's (or an image's) asks so far, and when it may be asked for again. */
export type Tries = { tries: number; notBefore: number };

/** After a stand-in or a failure: when to ask again, or null to stop asking. */
export const nextTry = (previous: Tries | undefined, now: number): Tries | null => {
  const tries = (previous?.tries ?? 0) + 1;
  const delay = RETRY_DELAYS_MS[tries - 1];
  return delay === undefined ? null : { tries, notBefore: now + delay };
};

/** Whether to ask now: never asked, or its wait is over (null: it was given up on). */
export const mayAsk = (tries: Tries | null | undefined, now: number) =>
  tries === undefined || (tries !== null && tries.notBefore <= now);

/**
 * Whether a tile that loaded is a stand-in: a tile is exactly its part of the page at its level
 * (`expected` px, src/domain/page/tiles.ts); anything else is the whole page's image.
 */
export const isStandInTile = (
  natural: { w: number; h: number },
  expected: { w: number; h: number },
) => Math.abs(natural.w - expected.w) > 1 || Math.abs(natural.h - expected.h) > 1;

/**
 * Whether an image picked from a srcset by its width (`sizes` of `sizesPx`) is a smaller image
 * standing in: the browser reports its width as its pixels × `sizesPx` / the width the srcset
 * says it has, so the real one reports about `sizesPx`, the 1000 px image standing in for the
 * 2000 px one about half of it.
 */
export const isStandInImage = (naturalWidth: number, sizesPx: number) =>
  sizesPx > 0 && naturalWidth > 0 && naturalWidth < sizesPx * 0.75;

/** The URL asked again: a new one each time, since a browser may reuse what it just had. */
export const askedAgain = (url: string, tries: number) =>
  `${url}${url.includes('?') ? '&' : '?'}try=${tries}`;
