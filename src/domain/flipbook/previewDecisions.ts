// The decisions about a flipbook's previews (./previews.ts): publish or replace under a name,
// record the comparison once, promote exactly the version reviewed, delete. Apart from
// ./decide.ts, which hands them the flipbook, because they append version events too.
import { Conflict, NotFound } from '../errors.ts';
import { iso } from '../iso.ts';
import type { Flipbook, FlipbookEvent, UploadedFile } from './flipbook.ts';
import {
  checkPreviewName,
  MAX_PREVIEWS,
  type PreviewCompared,
  type PreviewState,
} from './previews.ts';

type Created = Extract<Flipbook, { status: 'created' }>;

export type PublishPreview = {
  type: 'PublishPreview';
  data: { name: string; versionId: string; file: UploadedFile; now: Date };
};
export type RecordComparison = {
  type: 'RecordComparison';
  data: Omit<PreviewCompared['data'], 'flipbookId' | 'workspaceId' | 'occurredAt'> & { now: Date };
};
export type PromotePreview = { type: 'PromotePreview'; data: { name: string; now: Date } };
export type DeletePreview = {
  type: 'DeletePreview';
  /**
   * `versionId`: only while the preview still shows this version (the sweep judged that one old:
   * a push since then made it new again)
   */
  data: { name: string; expired?: boolean; versionId?: string; now: Date };
};
export type PreviewCommand = PublishPreview | RecordComparison | PromotePreview | DeletePreview;

export const decidePreviews = (command: PreviewCommand, book: Created): FlipbookEvent[] => {
  const at = (versionId: string, now: Date) => ({
    flipbookId: book.flipbookId,
    workspaceId: book.workspaceId,
    versionId,
    occurredAt: iso(now),
  });
  switch (command.type) {
    case 'PublishPreview': {
      const { name, versionId, file, now } = command.data;
      checkPreviewName(name);
      // the same upload again (a retried request): it is there already
      if (book.versions[versionId]) return [];
      const replaced = book.previews[name]?.versionId ?? null;
      if (replaced === null && Object.keys(book.previews).length >= MAX_PREVIEWS) {
        throw new Conflict(
          `This flipbook has ${MAX_PREVIEWS} previews, the most it may have; delete one first`,
        );
      }
      return [
        {
          type: 'VersionUploaded',
          data: { ...at(versionId, now), number: book.lastNumber + 1, file, activateOnDone: false },
        },
        ...(replaced ? [{ type: 'VersionDeleted' as const, data: at(replaced, now) }] : []),
        {
          type: 'PreviewPublished',
          data: { ...at(versionId, now), name, replacedVersionId: replaced },
        },
      ];
    }
    case 'RecordComparison': {
      const { now, ...found } = command.data;
      const preview = book.previews[found.name];
      // a comparison of a version since replaced, promoted or deleted, or one recorded already
      if (preview?.versionId !== found.versionId || preview.compared) return [];
      return [{ type: 'PreviewCompared', data: { ...at(found.versionId, now), ...found } }];
    }
    case 'PromotePreview': {
      const { name, now } = command.data;
      const { versionId } = live(book, name);
      const status = book.versions[versionId]?.status ?? 'error';
      if (status === 'error') {
        throw new Conflict(
          `Preview ${name} failed processing: only a processed preview can be promoted; push a new version to it`,
        );
      }
      if (status !== 'done') {
        throw new Conflict(
          `Preview ${name} is ${status}: only a processed preview can be promoted; wait until it is done`,
        );
      }
      return [
        {
          type: 'VersionActivated',
          data: { ...at(versionId, now), previousVersionId: book.activeVersionId },
        },
        { type: 'PreviewPromoted', data: { ...at(versionId, now), name } },
      ];
    }
    case 'DeletePreview': {
      const { name, now } = command.data;
      const { versionId } = live(book, name);
      if (command.data.versionId && command.data.versionId !== versionId) return [];
      return [
        { type: 'VersionDeleted', data: at(versionId, now) },
        {
          type: 'PreviewDeleted',
          data: { ...at(versionId, now), name, expired: command.data.expired === true },
        },
      ];
    }
  }
};

const live = (book: Created, name: string): PreviewState => {
  const preview = book.previews[checkPreviewName(name)];
  if (!preview) throw new NotFound('Preview not found');
  return preview;
};
