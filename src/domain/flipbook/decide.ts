// Commands on a flipbook and the pure decisions about them. The spec's rules live here:
// one active version at a time, an active version can't be deleted, numbers grow without gaps,
// and only a `done` version can be activated (a version with no pages would show an empty reader).
// One file (over 300 lines): every command of the flipbook's decider beside the rules they share
// (versions, links, visibility), as a decider reads.
import { Conflict, InvalidInput, NotFound, RuleBroken } from '../errors.ts';
import type { DirectionChoice } from '../flipbookFields.ts';
import { iso } from '../iso.ts';
import { embedOrigins, type Visibility } from './access.ts';
import type { Flipbook, FlipbookEvent, PageSize, UploadedFile, VersionState } from './flipbook.ts';
import { decidePreviews, type PreviewCommand } from './previewDecisions.ts';
import { checkPreviewName, previewOf } from './previews.ts';
import { decideShareLinks, type ShareLinkCommand } from './shareLinks.ts';

type Created = Extract<Flipbook, { status: 'created' }>;

export type CreateFlipbook = {
  type: 'CreateFlipbook';
  data: {
    flipbookId: string;
    workspaceId: string;
    title: string;
    /** the upload named no title: `title` is the file name's (absent: a title was given) */
    titleFromFile?: boolean;
    slug: string;
    description: string;
    /** absent: auto */
    direction?: DirectionChoice;
    /** absent: public */
    visibility?: Visibility;
    /** version 1 is this preview's (./previews.ts): the flipbook has no live version yet */
    preview?: string;
    versionId: string;
    file: UploadedFile;
    now: Date;
  };
};
/**
 * Any of these; the ones given are set, all in one append, and recorded only if they change.
 * (The slug's uniqueness in the workspace is checked by the caller, under the workspace's lock.)
 */
export type EditFlipbook = {
  type: 'EditFlipbook';
  data: {
    title?: string;
    slug?: string;
    description?: string;
    direction?: DirectionChoice;
    archived?: boolean;
    downloadAllowed?: boolean;
    visibility?: Visibility;
    /** the sites that may frame the reader; [] for the default */
    embedOrigins?: string[];
    now: Date;
  };
};
export type DeleteFlipbook = { type: 'DeleteFlipbook'; data: { now: Date } };
export type SetDownload = { type: 'SetDownload'; data: { allowed: boolean; now: Date } };
export type UploadVersion = {
  type: 'UploadVersion';
  data: { versionId: string; file: UploadedFile; activateOnDone: boolean; now: Date };
};
export type RecordConversion = {
  type: 'RecordConversion';
  data: {
    versionId: string;
    pdf: { checksum: string; size: number };
    converter: string;
    now: Date;
  };
};
export type StartProcessing = {
  type: 'StartProcessing';
  data: { versionId: string; attempt: number; pageCount: number; now: Date };
};
export type CompleteProcessing = {
  type: 'CompleteProcessing';
  data: { versionId: string; width: number; height: number; pages: PageSize[]; now: Date };
};
export type RecordRenderedPages = {
  type: 'RecordRenderedPages';
  data: { versionId: string; pages: PageSize[]; now: Date };
};
export type FailProcessing = {
  type: 'FailProcessing';
  data: { versionId: string; reason: string; now: Date };
};
export type ActivateVersion = { type: 'ActivateVersion'; data: { versionId: string; now: Date } };
export type DeleteVersion = { type: 'DeleteVersion'; data: { versionId: string; now: Date } };

export type FlipbookCommand =
  | CreateFlipbook
  | EditFlipbook
  | DeleteFlipbook
  | SetDownload
  | UploadVersion
  | RecordConversion
  | StartProcessing
  | RecordRenderedPages
  | CompleteProcessing
  | FailProcessing
  | ActivateVersion
  | DeleteVersion
  | ShareLinkCommand
  | PreviewCommand;

export const createFlipbook = ({ data }: CreateFlipbook, state: Flipbook): FlipbookEvent[] => {
  if (state.status === 'created') throw new Conflict(`Flipbook ${data.flipbookId} already exists`);
  const { flipbookId, workspaceId, versionId, file, now } = data;
  const base = { flipbookId, workspaceId, occurredAt: iso(now) };
  return [
    {
      type: 'FlipbookCreated',
      data: {
        ...base,
        title: data.title,
        slug: data.slug,
        description: data.description,
        // auto is the absence of a choice, as in every event from before directions
        ...(data.direction && data.direction !== 'auto' ? { direction: data.direction } : {}),
        // always said, false included: only events from before it existed are left to guess
        titleFromFile: data.titleFromFile ?? false,
        // public is the absence of a choice, as in every event from before visibility
        ...(data.visibility && data.visibility !== 'public' ? { visibility: data.visibility } : {}),
      },
    },
    {
      type: 'VersionUploaded',
      data: { ...base, versionId, number: 1, file, activateOnDone: data.preview === undefined },
    },
    ...(data.preview === undefined
      ? []
      : [
          {
            type: 'PreviewPublished' as const,
            data: {
              ...base,
              versionId,
              name: checkPreviewName(data.preview),
              replacedVersionId: null,
            },
          },
        ]),
  ];
};

export const editFlipbook = ({ data }: EditFlipbook, state: Flipbook): FlipbookEvent[] => {
  const book = existing(state);
  const changes: {
    title?: string;
    slug?: string;
    description?: string;
    direction?: DirectionChoice;
  } = {};
  // Setting the title the file name gave it is a change too: from now on it is a chosen title.
  if (data.title !== undefined && (data.title !== book.title || book.titleFromFile === true))
    changes.title = data.title;
  if (data.slug !== undefined && data.slug !== book.slug) changes.slug = data.slug;
  if (data.description !== undefined && data.description !== book.description)
    changes.description = data.description;
  if (data.direction !== undefined && data.direction !== (book.direction ?? 'auto'))
    changes.direction = data.direction;
  const base = ofBook(book, data.now);
  const events: FlipbookEvent[] = [];
  if (Object.keys(changes).length > 0)
    events.push({ type: 'FlipbookEdited', data: { ...base, ...changes } });
  if (data.downloadAllowed !== undefined && data.downloadAllowed !== book.downloadAllowed) {
    events.push({
      type: 'FlipbookDownloadChanged',
      data: { ...base, allowed: data.downloadAllowed },
    });
  }
  if (data.visibility !== undefined && data.visibility !== book.visibility) {
    events.push({
      type: 'FlipbookVisibilityChanged',
      data: { ...base, visibility: data.visibility },
    });
  }
  if (data.embedOrigins !== undefined) {
    const origins = embedOrigins(data.embedOrigins);
    if (origins.join(' ') !== book.embedOrigins.join(' '))
      events.push({ type: 'FlipbookEmbedsChanged', data: { ...base, origins } });
  }
  if (data.archived === true && !book.archived)
    events.push({ type: 'FlipbookArchived', data: base });
  if (data.archived === false && book.archived)
    events.push({ type: 'FlipbookRestored', data: base });
  return events;
};

/** Deleting is final: a second deletion, like any command after it, finds no flipbook. */
export const deleteFlipbook = ({ data }: DeleteFlipbook, state: Flipbook): FlipbookEvent[] => {
  const book = existing(state);
  return [{ type: 'FlipbookDeleted', data: ofBook(book, data.now) }];
};

export const setDownload = ({ data }: SetDownload, state: Flipbook): FlipbookEvent[] => {
  const book = existing(state);
  if (book.downloadAllowed === data.allowed) return [];
  return [
    { type: 'FlipbookDownloadChanged', data: { ...ofBook(book, data.now), allowed: data.allowed } },
  ];
};

export const uploadVersion = ({ data }: UploadVersion, state: Flipbook): FlipbookEvent[] => {
  const book = existing(state);
  if (book.versions[data.versionId]) return [];
  const { versionId, file, activateOnDone, now } = data;
  return [
    {
      type: 'VersionUploaded',
      data: {
        ...ofVersion(book, versionId, now),
        number: book.lastNumber + 1,
        file,
        activateOnDone,
      },
    },
  ];
};

/** The PDF made of an upload that was not one; a stale job's (finished, deleted) is dropped. */
export const recordConversion = ({ data }: RecordConversion, state: Flipbook): FlipbookEvent[] =>
  onUnfinished(state, data, (base) => ({
    type: 'VersionConverted',
    data: {
      ...base,
      pdf: { checksum: data.pdf.checksum, size: data.pdf.size },
      converter: data.converter,
    },
  }));

export const startProcessing = ({ data }: StartProcessing, state: Flipbook): FlipbookEvent[] =>
  onUnfinished(state, data, (base) => ({
    type: 'VersionProcessingStarted',
    data: { ...base, attempt: data.attempt, pageCount: data.pageCount },
  }));

export const completeProcessing = (
  { data }: CompleteProcessing,
  state: Flipbook,
): FlipbookEvent[] => {
  const job = unfinished(state, data.versionId);
  if (!job) return [];
  const { book, version } = job;
  if (data.pages.length === 0)
    throw new InvalidInput('A processed version needs at least one page');
  const base = ofVersion(book, data.versionId, data.now);
  const processed: FlipbookEvent = {
    type: 'VersionProcessed',
    data: {
      ...base,
      pageCount: data.pages.length,
      width: data.width,
      height: data.height,
      pages: data.pages,
    },
  };
  if (!version.activateOnDone || book.activeVersionId === data.versionId) return [processed];
  return [
    processed,
    { type: 'VersionActivated', data: { ...base, previousVersionId: book.activeVersionId } },
  ];
};

/** Progress: only while processing; a late batch after the outcome is simply dropped. */
export const recordRenderedPages = (
  { data }: RecordRenderedPages,
  state: Flipbook,
): FlipbookEvent[] => {
  const book = forWorker(state);
  const version = known(book, data.versionId);
  if (gone(book, version) || version.status !== 'processing' || data.pages.length === 0) return [];
  return [
    {
      type: 'VersionPagesRendered',
      data: { ...ofVersion(book, data.versionId, data.now), pages: data.pages },
    },
  ];
};

export const failProcessing = ({ data }: FailProcessing, state: Flipbook): FlipbookEvent[] =>
  onUnfinished(state, data, (base) => ({
    type: 'VersionProcessingFailed',
    data: { ...base, reason: data.reason },
  }));

export const activateVersion = ({ data }: ActivateVersion, state: Flipbook): FlipbookEvent[] => {
  const book = existing(state);
  const version = known(book, data.versionId);
  if (version.deleted)
    throw new RuleBroken('This version has been deleted and cannot be activated');
  if (book.activeVersionId === data.versionId) return [];
  if (version.status !== 'done') {
    throw new RuleBroken(
      `Only a processed version can be activated; this version is ${version.status}` +
        (version.status === 'error'
          ? ''
          : ' (it is activated automatically when done if activate was set)'),
    );
  }
  const activated: FlipbookEvent = {
    type: 'VersionActivated',
    data: { ...ofVersion(book, data.versionId, data.now), previousVersionId: book.activeVersionId },
  };
  // A preview's version activated by its id is that preview promoted: it is live, not a preview.
  const preview = previewOf(book.previews, data.versionId);
  if (preview === null) return [activated];
  return [
    activated,
    {
      type: 'PreviewPromoted',
      data: { ...ofVersion(book, data.versionId, data.now), name: preview },
    },
  ];
};

export const ACTIVE_NOT_DELETABLE =
  'An active version cannot be deleted; activate another version first';

export const deleteVersion = ({ data }: DeleteVersion, state: Flipbook): FlipbookEvent[] => {
  const book = existing(state);
  const version = known(book, data.versionId);
  if (version.deleted) return [];
  if (book.activeVersionId === data.versionId) {
    throw new RuleBroken(ACTIVE_NOT_DELETABLE);
  }
  const deleted: FlipbookEvent = {
    type: 'VersionDeleted',
    data: ofVersion(book, data.versionId, data.now),
  };
  // A preview's version deleted by its id takes its preview along.
  const preview = previewOf(book.previews, data.versionId);
  if (preview === null) return [deleted];
  return [
    deleted,
    {
      type: 'PreviewDeleted',
      data: { ...ofVersion(book, data.versionId, data.now), name: preview, expired: false },
    },
  ];
};

export const decide = (command: FlipbookCommand, state: Flipbook): FlipbookEvent[] => {
  switch (command.type) {
    case 'CreateFlipbook':
      return createFlipbook(command, state);
    case 'EditFlipbook':
      return editFlipbook(command, state);
    case 'DeleteFlipbook':
      return deleteFlipbook(command, state);
    case 'SetDownload':
      return setDownload(command, state);
    case 'UploadVersion':
      return uploadVersion(command, state);
    case 'RecordConversion':
      return recordConversion(command, state);
    case 'StartProcessing':
      return startProcessing(command, state);
    case 'RecordRenderedPages':
      return recordRenderedPages(command, state);
    case 'CompleteProcessing':
      return completeProcessing(command, state);
    case 'FailProcessing':
      return failProcessing(command, state);
    case 'ActivateVersion':
      return activateVersion(command, state);
    case 'DeleteVersion':
      return deleteVersion(command, state);
    case 'CreateShareLink':
    case 'EditShareLink':
    case 'RevokeShareLink':
      return decideShareLinks(command, existing(state));
    case 'PublishPreview':
    case 'PromotePreview':
    case 'DeletePreview':
      return decidePreviews(command, existing(state));
    case 'RecordComparison':
      return decidePreviews(command, forWorker(state));
  }
};

const existing = (state: Flipbook): Created => {
  if (state.status !== 'created' || state.deleted) throw new NotFound('Flipbook not found');
  return state;
};

/** A worker's command may come after the flipbook was deleted: that job is simply satisfied. */
const forWorker = (state: Flipbook): Created => {
  if (state.status !== 'created') throw new NotFound('Flipbook not found');
  return state;
};

const gone = (book: Created, version: VersionState) => book.deleted || version.deleted;

/**
 * The flipbook and version a worker's job is about while the version still waits for its
 * outcome; null when the job is stale (the flipbook or the version deleted, the version already
 * done or failed): a finished or deleted version has nothing left to process, and that job is
 * satisfied with no event.
 */
const unfinished = (state: Flipbook, versionId: string) => {
  const book = forWorker(state);
  const version = known(book, versionId);
  if (gone(book, version) || version.status === 'done' || version.status === 'error') return null;
  return { book, version };
};

/** A worker's one event about its version, on the version's own fields; none for a stale job. */
const onUnfinished = (
  state: Flipbook,
  { versionId, now }: { versionId: string; now: Date },
  event: (base: ReturnType<typeof ofVersion>) => FlipbookEvent,
): FlipbookEvent[] => {
  const job = unfinished(state, versionId);
  return job ? [event(ofVersion(job.book, versionId, now))] : [];
};

const ofBook = (book: Created, now: Date) => ({
  flipbookId: book.flipbookId,
  workspaceId: book.workspaceId,
  occurredAt: iso(now),
});

const known = (book: Created, versionId: string): VersionState => {
  const version = book.versions[versionId];
  if (!version) throw new NotFound('Version not found');
  return version;
};

const ofVersion = (book: Created, versionId: string, now: Date) => ({
  flipbookId: book.flipbookId,
  workspaceId: book.workspaceId,
  versionId,
  occurredAt: iso(now),
});
