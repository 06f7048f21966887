// A flipbook's previews, decided on the flipbook's stream: a version processed but never activated
// by itself, under a name its caller chooses (a pull request's, `pr-128`), read at an unguessable
// URL, compared once done with the version that is live, and then either promoted (that very
// version goes live: what was reviewed is what readers get) or deleted. A new push to the same
// name replaces the preview's version, so a name has one preview at a time. The comparison itself
// (pages aligned, regions changed) is a file beside the version's pages; its event keeps the
// counts, so the log says what a reviewer was shown. The decisions: ./previewDecisions.ts.
import type { Event } from '@event-driven-io/emmett';
import { InvalidInput } from '../errors.ts';

/** At most this many previews of one flipbook at once (a stale pull request's are swept). */
export const MAX_PREVIEWS = 50;
// Not starting with a dot: `.` and `..` are path steps to every HTTP client (fetch, browsers,
// curl), which would leave such a preview out of their reach once made.
const NAME = /^[a-z0-9_-][a-z0-9._-]{0,63}$/;
export const PREVIEW_NAME_RULE =
  'A preview name is 1 to 64 characters of a-z, 0-9, ".", "_" and "-", not starting with "." (e.g. pr-128)';

type OfPreview = {
  flipbookId: string;
  workspaceId: string;
  name: string;
  versionId: string;
  occurredAt: string;
};

/** A preview made, or its version replaced (the replaced one is deleted in the same append). */
export type PreviewPublished = Event<
  'PreviewPublished',
  OfPreview & { replacedVersionId: string | null }
>;
/** What the comparison with the live version found, in counts (the pages are in its file). */
export type PreviewCompared = Event<
  'PreviewCompared',
  OfPreview & {
    /** the version compared with; null: there was none to compare with (see `failure`) */
    againstVersionId: string | null;
    pagesBefore: number;
    pagesAfter: number;
    changed: number;
    inserted: number;
    removed: number;
    /** pages found elsewhere, alike (absent from events before moved pages were told apart) */
    moved?: number;
    unchanged: number;
    /** why no comparison could be made, in words (the preview still works) */
    failure?: string;
  }
>;
/** Its version is now the live one (a VersionActivated in the same append); the preview is gone. */
export type PreviewPromoted = Event<'PreviewPromoted', OfPreview>;
/** Gone with its version (a VersionDeleted in the same append): asked for, or swept as old. */
export type PreviewDeleted = Event<'PreviewDeleted', OfPreview & { expired: boolean }>;

export type PreviewEvent = PreviewPublished | PreviewCompared | PreviewPromoted | PreviewDeleted;

export type PreviewState = { versionId: string; compared: boolean };
/** The live previews by name. */
export type Previews = Readonly<Record<string, PreviewState>>;
export const NO_PREVIEWS: Previews = {};

export const evolvePreviews = (previews: Previews, event: PreviewEvent): Previews => {
  const { name, versionId } = event.data;
  switch (event.type) {
    case 'PreviewPublished':
      return { ...previews, [name]: { versionId, compared: false } };
    case 'PreviewCompared': {
      const preview = previews[name];
      if (preview?.versionId !== versionId) return previews;
      return { ...previews, [name]: { ...preview, compared: true } };
    }
    case 'PreviewPromoted':
    case 'PreviewDeleted': {
      const { [name]: _gone, ...rest } = previews;
      return rest;
    }
  }
};

/** The name of the preview whose version this is, if any. */
export const previewOf = (previews: Previews, versionId: string): string | null =>
  Object.entries(previews).find(([, p]) => p.versionId === versionId)?.[0] ?? null;

export const checkPreviewName = (name: string): string => {
  if (!NAME.test(name)) throw new InvalidInput(PREVIEW_NAME_RULE);
  return name;
};
