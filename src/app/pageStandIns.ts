// The image of a page that stands in for a deep-zoom tile not there yet (./pageTiles.ts): the
// best of the page's images already stored. Looked up once and remembered a while per page, so a
// flood of tile requests for a page asks the store once a minute, and a store that stops
// answering still gets the page's image named at once.
import type { BlobStore } from '../blobs/blobStore.ts';

/** The page's images, best first: what a reader gets while its tile is not there. */
const STAND_INS = ['max.jpg', 'mid.jpg', 'min.jpg'] as const;
export type StandIn = (typeof STAND_INS)[number];
/**
 * How long the page's best image, once looked up, is taken as known: a page's images stay while
 * its version lives (a largest image rendered later is found after this).
 */
const KNOWN_MS = 60_000;
const MAX_KNOWN = 10_000;
/** The page's best image, by `<version>/<position>`, while taken as known. */
const known = new Map<string, { file: StandIn; until: number }>();

/** The page's best image if it was looked up lately, else null (not known: not "none"). */
export const knownStandIn = (versionId: string, position: number): StandIn | null => {
  const page = known.get(`${versionId}/${position}`);
  return page && page.until > performance.now() ? page.file : null;
};

/** The page's best image there (null: none), from what was looked up lately or the store. */
export const standInOf = async (
  blobs: BlobStore,
  versionId: string,
  position: number,
): Promise<StandIn | null> => {
  const remembered = knownStandIn(versionId, position);
  if (remembered) return remembered;
  // All at once: a slow store costs one wait, not three.
  const there = await Promise.all(
    STAND_INS.map((file) =>
      blobs.openPageFile(versionId, position, file).then(
        async (image) => {
          await image?.close();
          return image !== null;
        },
        () => false,
      ),
    ),
  );
  const file = STAND_INS.find((_, i) => there[i]) ?? null;
  if (file) {
    if (known.size >= MAX_KNOWN) known.clear(); // a bound, not a cache to be clever with
    known.set(`${versionId}/${position}`, { file, until: performance.now() + KNOWN_MS });
  }
  return file;
};
