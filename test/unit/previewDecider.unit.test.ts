// Previews on the flipbook's stream, rule by rule: given past events, when a command, then the
// new events (issue "Review a PDF change like a code change").
import { describe, expect, it } from 'vitest';
import { Conflict, InvalidInput, NotFound } from '../../src/domain/errors.ts';
import { decide } from '../../src/domain/flipbook/decide.ts';
import { evolve, type FlipbookEvent, initialState } from '../../src/domain/flipbook/flipbook.ts';
import { MAX_PREVIEWS, PREVIEW_NAME_RULE } from '../../src/domain/flipbook/previews.ts';
import { deciderSpec } from '../support/deciderSpec.ts';
import { book, NOW, now, past, pdfFile, versionId } from '../support/domainFixtures.ts';

const given = deciderSpec({ decide, evolve, initialState });

const V = versionId;
const FILE = pdfFile('manual.pdf', 1234, 'cd'.repeat(32));
const PAGES = [
  { pageId: 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaa1', position: 1, width: 1, height: 1 },
];

// Events, past ones unless stamped `now` (the new ones expected).
const created: FlipbookEvent = {
  type: 'FlipbookCreated',
  data: { ...past, title: 'Manual', slug: 'manual', description: '' },
};
const uploaded = (n: number, activateOnDone = true, at = past): FlipbookEvent => ({
  type: 'VersionUploaded',
  data: { ...at, versionId: V(n), number: n, file: FILE, activateOnDone },
});
const processed = (n: number, at = past): FlipbookEvent => ({
  type: 'VersionProcessed',
  data: { ...at, versionId: V(n), pageCount: 1, width: 1, height: 1, pages: PAGES },
});
const activated = (n: number, previous: number | null): FlipbookEvent => ({
  type: 'VersionActivated',
  data: { ...past, versionId: V(n), previousVersionId: previous === null ? null : V(previous) },
});
const published = (
  name: string,
  n: number,
  replaced: number | null = null,
  at = past,
): FlipbookEvent => ({
  type: 'PreviewPublished',
  data: {
    ...at,
    name,
    versionId: V(n),
    replacedVersionId: replaced === null ? null : V(replaced),
  },
});
/** A flipbook whose version 1 is live. */
const live = [created, uploaded(1), processed(1), activated(1, null)];
/** ... with the preview pr-7 as version 2, processed. */
const withPreview = [...live, uploaded(2, false), published('pr-7', 2), processed(2)];

const publish = (name: string, n: number) =>
  ({ type: 'PublishPreview', data: { name, versionId: V(n), file: FILE, now: NOW } }) as const;

describe('publishing a preview', () => {
  it('uploads a version that is never activated by itself, under the name', () => {
    given(live)
      .when(publish('pr-7', 2))
      .then([uploaded(2, false, now), published('pr-7', 2, null, now)]);
  });

  it('replaces the version of a name published before, deleting the old one', () => {
    given(withPreview)
      .when(publish('pr-7', 3))
      .then([
        uploaded(3, false, now),
        { type: 'VersionDeleted', data: { ...now, versionId: V(2) } },
        published('pr-7', 3, 2, now),
      ]);
  });

  it('does nothing for the same upload again (a retried request)', () => {
    given(withPreview).when(publish('pr-7', 2)).thenNothingHappened();
  });

  it.each(['', 'PR-7', 'pr 7', 'pr/7', 'a'.repeat(65), '../x', '.', '..', '.hidden'])(
    'refuses the name %j in words',
    (name) => {
      given(live)
        .when(publish(name, 2))
        .thenThrows((e: Error) => e instanceof InvalidInput && e.message === PREVIEW_NAME_RULE);
    },
  );

  it(`refuses a new name past ${MAX_PREVIEWS} previews, and still replaces an existing one`, () => {
    const many: FlipbookEvent[] = [...live];
    for (let n = 2; n < 2 + MAX_PREVIEWS; n++) many.push(uploaded(n, false), published(`p${n}`, n));
    given(many)
      .when(publish('one-more', 90))
      .thenThrows((e: Error) => e instanceof Conflict && /at most|the most/.test(e.message));
    const replaced = decide(publish('p2', 91), many.reduce(evolve, initialState()));
    expect(replaced.map((e) => e.type)).toEqual([
      'VersionUploaded',
      'VersionDeleted',
      'PreviewPublished',
    ]);
  });

  it('creates a flipbook with no live version when its first upload is a preview', () => {
    given([])
      .when({
        type: 'CreateFlipbook',
        data: {
          ...book,
          title: 'Manual',
          slug: 'manual',
          description: '',
          preview: 'pr-1',
          versionId: V(1),
          file: FILE,
          now: NOW,
        },
      })
      .then([
        {
          type: 'FlipbookCreated',
          data: {
            ...now,
            title: 'Manual',
            slug: 'manual',
            description: '',
            titleFromFile: false,
          },
        },
        uploaded(1, false, now),
        published('pr-1', 1, null, now),
      ]);
  });

  it('is never activated when its processing completes', () => {
    given([...live, uploaded(2, false), published('pr-7', 2)])
      .when({
        type: 'CompleteProcessing',
        data: { versionId: V(2), width: 1, height: 1, pages: PAGES, now: NOW },
      })
      .then([processed(2, now)]);
  });
});

describe('promoting a preview', () => {
  it('activates exactly its version, and the preview is gone', () => {
    given(withPreview)
      .when({ type: 'PromotePreview', data: { name: 'pr-7', now: NOW } })
      .then([
        { type: 'VersionActivated', data: { ...now, versionId: V(2), previousVersionId: V(1) } },
        { type: 'PreviewPromoted', data: { ...now, name: 'pr-7', versionId: V(2) } },
      ]);
    const after = decide(
      { type: 'PromotePreview', data: { name: 'pr-7', now: NOW } },
      withPreview.reduce(evolve, initialState()),
    ).reduce(evolve, withPreview.reduce(evolve, initialState()));
    expect(after.status === 'created' && after.previews).toEqual({});
  });

  it('refuses a preview not done yet, or failed, with 409 in words', () => {
    given([...live, uploaded(2, false), published('pr-7', 2)])
      .when({ type: 'PromotePreview', data: { name: 'pr-7', now: NOW } })
      .thenThrows(
        (e: Error) => e instanceof Conflict && /pending.*wait until it is done/.test(e.message),
      );
  });

  it('is what activating its version by id does too', () => {
    given(withPreview)
      .when({ type: 'ActivateVersion', data: { versionId: V(2), now: NOW } })
      .then([
        { type: 'VersionActivated', data: { ...now, versionId: V(2), previousVersionId: V(1) } },
        { type: 'PreviewPromoted', data: { ...now, name: 'pr-7', versionId: V(2) } },
      ]);
  });

  it('refuses a failed preview, saying what to do', () => {
    given([
      ...live,
      uploaded(2, false),
      published('pr-7', 2),
      {
        type: 'VersionProcessingFailed',
        data: { ...past, versionId: V(2), reason: 'The PDF is password-protected' },
      },
    ])
      .when({ type: 'PromotePreview', data: { name: 'pr-7', now: NOW } })
      .thenThrows(
        (e: Error) =>
          e instanceof Conflict &&
          e.message ===
            'Preview pr-7 failed processing: only a processed preview can be promoted; push a new version to it',
      );
  });

  it('finds no preview of an unknown name', () => {
    given(live)
      .when({ type: 'PromotePreview', data: { name: 'pr-9', now: NOW } })
      .thenThrows((e: Error) => e instanceof NotFound);
  });
});

describe('deleting a preview', () => {
  it('deletes its version with it, marked as asked for or as swept', () => {
    for (const expired of [false, true]) {
      given(withPreview)
        .when({ type: 'DeletePreview', data: { name: 'pr-7', expired, now: NOW } })
        .then([
          { type: 'VersionDeleted', data: { ...now, versionId: V(2) } },
          { type: 'PreviewDeleted', data: { ...now, name: 'pr-7', versionId: V(2), expired } },
        ]);
    }
  });

  it('is swept only while it shows the version judged old (a push since made it new again)', () => {
    given(withPreview)
      .when({
        type: 'DeletePreview',
        data: { name: 'pr-7', expired: true, versionId: V(9), now: NOW },
      })
      .then([]);
    given(withPreview)
      .when({
        type: 'DeletePreview',
        data: { name: 'pr-7', expired: true, versionId: V(2), now: NOW },
      })
      .then([
        { type: 'VersionDeleted', data: { ...now, versionId: V(2) } },
        {
          type: 'PreviewDeleted',
          data: { ...now, name: 'pr-7', versionId: V(2), expired: true },
        },
      ]);
  });

  it('goes with its version deleted by id', () => {
    given(withPreview)
      .when({ type: 'DeleteVersion', data: { versionId: V(2), now: NOW } })
      .then([
        { type: 'VersionDeleted', data: { ...now, versionId: V(2) } },
        {
          type: 'PreviewDeleted',
          data: { ...now, name: 'pr-7', versionId: V(2), expired: false },
        },
      ]);
  });
});

describe('recording the comparison', () => {
  const counts = {
    againstVersionId: V(1),
    pagesBefore: 1,
    pagesAfter: 1,
    changed: 1,
    inserted: 0,
    removed: 0,
    unchanged: 0,
  };
  const record = (n: number) =>
    ({
      type: 'RecordComparison',
      data: { name: 'pr-7', versionId: V(n), ...counts, now: NOW },
    }) as const;

  it('records it once for the preview version it was made of', () => {
    given(withPreview)
      .when(record(2))
      .then([
        { type: 'PreviewCompared', data: { ...now, name: 'pr-7', versionId: V(2), ...counts } },
      ]);
    given([
      ...withPreview,
      { type: 'PreviewCompared', data: { ...past, name: 'pr-7', versionId: V(2), ...counts } },
    ])
      .when(record(2))
      .thenNothingHappened();
  });

  it('drops a comparison of a version replaced since (a stale job)', () => {
    given([...withPreview, uploaded(3, false), published('pr-7', 3, 2)])
      .when(record(2))
      .thenNothingHappened();
  });
});
