// The flipbook aggregate: a titled document with numbered versions, at most one of them active.
import type { Event } from '@event-driven-io/emmett';
import { type Direction, type DirectionChoice, defaultTitleOf } from '../flipbookFields.ts';
import type { Visibility } from './access.ts';
import { evolvePreviews, NO_PREVIEWS, type PreviewEvent, type Previews } from './previews.ts';
import { evolveShareLinks, type LinkLedger, NO_LINKS, type ShareLinkEvent } from './shareLinks.ts';

export type VersionStatus = 'pending' | 'processing' | 'done' | 'error';

export type UploadedFile = {
  name: string;
  /** short type name, e.g. "pdf" */
  type: string;
  mimeType: string;
  size: number;
  /** hex SHA-256 of the bytes, also the key of the original in the blob store */
  checksum: string;
};

export type PageSize = { pageId: string; position: number; width: number; height: number };

type Base = { flipbookId: string; workspaceId: string; occurredAt: string };
type OfVersion = Base & { versionId: string };

export type FlipbookCreated = Event<
  'FlipbookCreated',
  Base & {
    title: string;
    slug: string;
    description: string;
    /** absent: auto (the PDF's own direction); always absent before directions existed */
    direction?: Direction;
    /**
     * true: the upload named no title, so `title` is the file name's (the reader shows the PDF's
     * own title instead). Absent in events from before it existed: then the title is the file
     * name's when it equals what `defaultTitle` makes of version 1's file name.
     */
    titleFromFile?: boolean;
    /** who may read it (./access.ts); absent: public, as in every event from before it */
    visibility?: Visibility;
  }
>;
/**
 * Title, slug, description or direction changed: only the fields that changed are present. A
 * title present is one chosen, even if it is the file name's (it ends `titleFromFile`).
 */
export type FlipbookEdited = Event<
  'FlipbookEdited',
  Base & { title?: string; slug?: string; description?: string; direction?: DirectionChoice }
>;
/** Taken off the web (its reader says it is not available); listed under status=archived. */
export type FlipbookArchived = Event<'FlipbookArchived', Base>;
/** Back on the web at the same address. */
export type FlipbookRestored = Event<'FlipbookRestored', Base>;
/** Gone for good: its files are removed and every URL of it is a 404; its events stay. */
export type FlipbookDeleted = Event<'FlipbookDeleted', Base>;
/** Whether readers may download the PDF (the upload, or the one made of a converted upload). */
export type FlipbookDownloadChanged = Event<'FlipbookDownloadChanged', Base & { allowed: boolean }>;
/** Who may read it from now on (./access.ts). */
export type FlipbookVisibilityChanged = Event<
  'FlipbookVisibilityChanged',
  Base & { visibility: Visibility }
>;
/** The sites that may frame its reader; empty: the default for its visibility (./access.ts). */
export type FlipbookEmbedsChanged = Event<'FlipbookEmbedsChanged', Base & { origins: string[] }>;
export type VersionUploaded = Event<
  'VersionUploaded',
  OfVersion & { number: number; file: UploadedFile; activateOnDone: boolean }
>;
export type VersionProcessingStarted = Event<
  'VersionProcessingStarted',
  /** pageCount: known from pdfinfo before rendering starts, so progress can show it */
  OfVersion & { attempt: number; pageCount: number }
>;
/**
 * An upload that is not a PDF (an office document, images) made into the PDF every later step
 * reads (issue 45). The PDF is kept beside the original, by its own checksum: the event names it,
 * so a replay knows which pages came from what, whatever a later converter would make of the
 * same upload. `converter` says which tool and version made it, for the record.
 */
export type VersionConverted = Event<
  'VersionConverted',
  OfVersion & { pdf: { checksum: string; size: number }; converter: string }
>;
/** Pages ready so far, recorded in batches while a long document renders. */
export type VersionPagesRendered = Event<'VersionPagesRendered', OfVersion & { pages: PageSize[] }>;
export type VersionProcessed = Event<
  'VersionProcessed',
  OfVersion & { pageCount: number; width: number; height: number; pages: PageSize[] }
>;
export type VersionProcessingFailed = Event<
  'VersionProcessingFailed',
  OfVersion & { reason: string }
>;
export type VersionActivated = Event<
  'VersionActivated',
  OfVersion & { previousVersionId: string | null }
>;
export type VersionDeleted = Event<'VersionDeleted', OfVersion>;

export type FlipbookEvent =
  | FlipbookCreated
  | FlipbookEdited
  | FlipbookArchived
  | FlipbookRestored
  | FlipbookDeleted
  | FlipbookDownloadChanged
  | FlipbookVisibilityChanged
  | FlipbookEmbedsChanged
  | ShareLinkEvent
  | PreviewEvent
  | VersionUploaded
  | VersionConverted
  | VersionProcessingStarted
  | VersionPagesRendered
  | VersionProcessed
  | VersionProcessingFailed
  | VersionActivated
  | VersionDeleted;

export type VersionState = {
  number: number;
  status: VersionStatus;
  activateOnDone: boolean;
  deleted: boolean;
};

export type Flipbook =
  | { status: 'none' }
  | {
      status: 'created';
      flipbookId: string;
      workspaceId: string;
      title: string;
      /** the title is still the file name's; null: an old flipbook, until its version 1 says */
      titleFromFile: boolean | null;
      slug: string;
      description: string;
      /** null: auto */
      direction: Direction | null;
      archived: boolean;
      /** deleted for good: every command but a worker's stale one is a 404 */
      deleted: boolean;
      activeVersionId: string | null;
      downloadAllowed: boolean;
      visibility: Visibility;
      embedOrigins: string[];
      /** its share links' events, and how many links are live (./shareLinks.ts) */
      links: LinkLedger;
      /** its previews by name (./previews.ts) */
      previews: Previews;
      /** highest number ever given, deleted versions included, so numbers never repeat */
      lastNumber: number;
      versions: Record<string, VersionState>;
    };

export const initialState = (): Flipbook => ({ status: 'none' });

export const evolve = (state: Flipbook, event: FlipbookEvent): Flipbook => {
  if (event.type === 'FlipbookCreated') {
    const { flipbookId, workspaceId, title, slug, description, direction, titleFromFile } =
      event.data;
    const visibility = event.data.visibility ?? 'public';
    return {
      status: 'created',
      flipbookId,
      workspaceId,
      title,
      titleFromFile: titleFromFile ?? null,
      slug,
      description,
      direction: direction ?? null,
      archived: false,
      deleted: false,
      activeVersionId: null,
      downloadAllowed: true,
      visibility,
      embedOrigins: [],
      links: NO_LINKS,
      previews: NO_PREVIEWS,
      lastNumber: 0,
      versions: {},
    };
  }
  if (state.status !== 'created') return state;
  if (event.type === 'FlipbookDownloadChanged')
    return { ...state, downloadAllowed: event.data.allowed };
  if (event.type === 'FlipbookVisibilityChanged')
    return { ...state, visibility: event.data.visibility };
  if (event.type === 'FlipbookEmbedsChanged') return { ...state, embedOrigins: event.data.origins };
  if (
    event.type === 'ShareLinkCreated' ||
    event.type === 'ShareLinkEdited' ||
    event.type === 'ShareLinkRevoked'
  ) {
    return { ...state, links: evolveShareLinks(state.links, event) };
  }
  if (
    event.type === 'PreviewPublished' ||
    event.type === 'PreviewCompared' ||
    event.type === 'PreviewPromoted' ||
    event.type === 'PreviewDeleted'
  ) {
    return { ...state, previews: evolvePreviews(state.previews, event) };
  }
  if (event.type === 'FlipbookEdited') {
    const { title, slug, description, direction } = event.data;
    return {
      ...state,
      title: title ?? state.title,
      titleFromFile: title === undefined ? state.titleFromFile : false,
      slug: slug ?? state.slug,
      description: description ?? state.description,
      direction:
        direction === undefined ? state.direction : direction === 'auto' ? null : direction,
    };
  }
  if (event.type === 'FlipbookArchived') return { ...state, archived: true };
  if (event.type === 'FlipbookRestored') return { ...state, archived: false };
  if (event.type === 'FlipbookDeleted') return { ...state, deleted: true };
  const { versionId } = event.data;
  const version = state.versions[versionId];
  const withVersion = (patch: Partial<VersionState>): Flipbook =>
    version
      ? { ...state, versions: { ...state.versions, [versionId]: { ...version, ...patch } } }
      : state;

  switch (event.type) {
    case 'VersionUploaded':
      return {
        ...state,
        // Upcast of a FlipbookCreated from before `titleFromFile`: version 1 is appended with it.
        titleFromFile:
          state.titleFromFile === null && event.data.number === 1
            ? defaultTitleOf(event.data.file.name) === state.title
            : state.titleFromFile,
        lastNumber: Math.max(state.lastNumber, event.data.number),
        versions: {
          ...state.versions,
          [versionId]: {
            number: event.data.number,
            status: 'pending',
            activateOnDone: event.data.activateOnDone,
            deleted: false,
          },
        },
      };
    case 'VersionProcessingStarted':
      return withVersion({ status: 'processing' });
    case 'VersionConverted':
    case 'VersionPagesRendered':
      return state;
    case 'VersionProcessed':
      return withVersion({ status: 'done' });
    case 'VersionProcessingFailed':
      return withVersion({ status: 'error' });
    case 'VersionActivated':
      return { ...state, activeVersionId: versionId };
    case 'VersionDeleted':
      return withVersion({ deleted: true });
  }
};

export const flipbookStream = (flipbookId: string) => `flipbook-${flipbookId}`;
