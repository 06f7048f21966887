// The flipbook decider, rule by rule: given past events, when a command, then the new events.
import { describe, expect, it } from 'vitest';
import { Conflict, InvalidInput, NotFound, RuleBroken } from '../../src/domain/errors.ts';
import { decide, type FlipbookCommand } from '../../src/domain/flipbook/decide.ts';
import {
  evolve,
  type FlipbookCreated,
  type FlipbookEvent,
  initialState,
  type PageSize,
  type VersionActivated,
  type VersionDeleted,
  type VersionProcessed,
  type VersionProcessingFailed,
  type VersionProcessingStarted,
  type VersionUploaded,
} from '../../src/domain/flipbook/flipbook.ts';
import { deciderSpec } from '../support/deciderSpec.ts';
import { book, NOW, now, past, pdfFile, versionId } from '../support/domainFixtures.ts';

const given = deciderSpec({ decide, evolve, initialState });

const V1 = versionId(1);
const V2 = versionId(2);
const V3 = versionId(3);
const V4 = versionId(4);
const UNKNOWN = versionId(9);
const FILE = pdfFile('spring-catalogue.pdf', 482_133);
const PAGES: PageSize[] = [
  { pageId: 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaa1', position: 1, width: 595, height: 842 },
  { pageId: 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaa2', position: 2, width: 595, height: 842 },
  { pageId: 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaa3', position: 3, width: 842, height: 595 },
];

// Past events, all stamped EARLIER_ISO.
const flipbookCreated = (): FlipbookCreated => ({
  type: 'FlipbookCreated',
  data: { ...past, title: 'Spring catalogue', slug: 'spring-catalogue', description: '' },
});
const uploaded = (versionId: string, number: number, activateOnDone = true): VersionUploaded => ({
  type: 'VersionUploaded',
  data: { ...past, versionId, number, file: FILE, activateOnDone },
});
const started = (versionId: string, attempt = 1): VersionProcessingStarted => ({
  type: 'VersionProcessingStarted',
  data: { ...past, versionId, attempt, pageCount: 3 },
});
const processed = (versionId: string): VersionProcessed => ({
  type: 'VersionProcessed',
  data: { ...past, versionId, pageCount: PAGES.length, width: 595, height: 842, pages: PAGES },
});
const failed = (versionId: string): VersionProcessingFailed => ({
  type: 'VersionProcessingFailed',
  data: { ...past, versionId, reason: 'pdftoppm exited with code 1' },
});
const activated = (versionId: string, previousVersionId: string | null): VersionActivated => ({
  type: 'VersionActivated',
  data: { ...past, versionId, previousVersionId },
});
const deleted = (versionId: string): VersionDeleted => ({
  type: 'VersionDeleted',
  data: { ...past, versionId },
});

// Commands, all at NOW.
const create = (): FlipbookCommand => ({
  type: 'CreateFlipbook',
  data: {
    ...book,
    title: 'Spring catalogue',
    slug: 'spring-catalogue',
    description: '',
    versionId: V1,
    file: FILE,
    now: NOW,
  },
});
const upload = (versionId: string, activateOnDone = false): FlipbookCommand => ({
  type: 'UploadVersion',
  data: { versionId, file: FILE, activateOnDone, now: NOW },
});
const start = (versionId: string, attempt = 1): FlipbookCommand => ({
  type: 'StartProcessing',
  data: { versionId, attempt, pageCount: 3, now: NOW },
});
const complete = (versionId: string, pages: PageSize[] = PAGES): FlipbookCommand => ({
  type: 'CompleteProcessing',
  data: { versionId, width: 595, height: 842, pages, now: NOW },
});
const fail = (versionId: string, reason = 'not a PDF'): FlipbookCommand => ({
  type: 'FailProcessing',
  data: { versionId, reason, now: NOW },
});
const activate = (versionId: string): FlipbookCommand => ({
  type: 'ActivateVersion',
  data: { versionId, now: NOW },
});
const remove = (versionId: string): FlipbookCommand => ({
  type: 'DeleteVersion',
  data: { versionId, now: NOW },
});

// Expected new events, stamped NOW_ISO.
const processedNow = (versionId: string): FlipbookEvent => ({
  type: 'VersionProcessed',
  data: { ...now, versionId, pageCount: 3, width: 595, height: 842, pages: PAGES },
});
const activatedNow = (versionId: string, previousVersionId: string | null): FlipbookEvent => ({
  type: 'VersionActivated',
  data: { ...now, versionId, previousVersionId },
});

// Common histories.
/** V1 uploaded with the flipbook, processed and active. */
const v1Active = (): FlipbookEvent[] => [
  flipbookCreated(),
  uploaded(V1, 1, true),
  started(V1),
  processed(V1),
  activated(V1, null),
];
/** V1 active, V2 processed but not active. */
const v2Done = (): FlipbookEvent[] => [
  ...v1Active(),
  uploaded(V2, 2, false),
  started(V2),
  processed(V2),
];

describe('flipbook decider', () => {
  describe('CreateFlipbook', () => {
    it('creates the flipbook with its first version, numbered 1 and activated when done', () => {
      given([])
        .when(create())
        .then([
          {
            type: 'FlipbookCreated',
            data: {
              ...now,
              title: 'Spring catalogue',
              slug: 'spring-catalogue',
              description: '',
              titleFromFile: false,
            },
          },
          {
            type: 'VersionUploaded',
            data: { ...now, versionId: V1, number: 1, file: FILE, activateOnDone: true },
          },
        ]);
    });

    it('refuses to create a flipbook that already exists', () => {
      given([flipbookCreated(), uploaded(V1, 1)])
        .when(create())
        .thenThrows((e) => e instanceof Conflict && e.message.includes(book.flipbookId));
    });
  });

  describe('UploadVersion', () => {
    it('refuses to upload a version to a flipbook that does not exist', () => {
      given([])
        .when(upload(V2))
        .thenThrows((e) => e instanceof NotFound && /Flipbook/.test(e.message));
    });

    it('numbers a new version one above the last number, keeping its activate flag', () => {
      given(v1Active())
        .when(upload(V2, true))
        .then([
          {
            type: 'VersionUploaded',
            data: { ...now, versionId: V2, number: 2, file: FILE, activateOnDone: true },
          },
        ]);
    });

    it('never reuses the number of a deleted version', () => {
      given([...v1Active(), uploaded(V2, 2, false), deleted(V2)])
        .when(upload(V3))
        .then([
          {
            type: 'VersionUploaded',
            data: { ...now, versionId: V3, number: 3, file: FILE, activateOnDone: false },
          },
        ]);
    });

    it('does nothing when the same version id is uploaded twice', () => {
      given([...v1Active(), uploaded(V2, 2, false)])
        .when(upload(V2))
        .thenNothingHappened();
    });
  });

  describe('StartProcessing', () => {
    it('starts processing a pending version', () => {
      given([flipbookCreated(), uploaded(V1, 1)])
        .when(start(V1))
        .then([
          {
            type: 'VersionProcessingStarted',
            data: { ...now, versionId: V1, attempt: 1, pageCount: 3 },
          },
        ]);
    });

    it('records another attempt on a version that is already processing', () => {
      given([flipbookCreated(), uploaded(V1, 1), started(V1, 1)])
        .when(start(V1, 2))
        .then([
          {
            type: 'VersionProcessingStarted',
            data: { ...now, versionId: V1, attempt: 2, pageCount: 3 },
          },
        ]);
    });

    it.each([
      ['is already done', v1Active(), V1],
      ['failed', [flipbookCreated(), uploaded(V1, 1), started(V1), failed(V1)], V1],
      ['was deleted', [...v1Active(), uploaded(V2, 2, false), deleted(V2)], V2],
    ])('does nothing for a version that %s', (_, history, versionId) => {
      given(history).when(start(versionId)).thenNothingHappened();
    });
  });

  describe('CompleteProcessing', () => {
    it('completes the first version and activates it with no previous version', () => {
      given([flipbookCreated(), uploaded(V1, 1, true), started(V1)])
        .when(complete(V1))
        .then([processedNow(V1), activatedNow(V1, null)]);
    });

    it('completes a version uploaded with activate and activates it in place of the active one', () => {
      given([...v1Active(), uploaded(V2, 2, true), started(V2)])
        .when(complete(V2))
        .then([processedNow(V2), activatedNow(V2, V1)]);
    });

    it('completes a version uploaded without activate and leaves the active version alone', () => {
      given([...v1Active(), uploaded(V2, 2, false), started(V2)])
        .when(complete(V2))
        .then([processedNow(V2)]);
    });

    it('completes a pending version whose start was never recorded', () => {
      given([...v1Active(), uploaded(V2, 2, false)])
        .when(complete(V2))
        .then([processedNow(V2)]);
    });

    it('refuses a result with no pages', () => {
      given([flipbookCreated(), uploaded(V1, 1, true), started(V1)])
        .when(complete(V1, []))
        .thenThrows((e) => e instanceof InvalidInput && /page/.test(e.message));
    });

    it.each([
      ['was deleted', [...v1Active(), uploaded(V2, 2, true), started(V2), deleted(V2)]],
      ['is already done', v2Done()],
      ['failed', [...v1Active(), uploaded(V2, 2, true), started(V2), failed(V2)]],
    ])('does nothing for a version that %s', (_, history) => {
      given(history).when(complete(V2)).thenNothingHappened();
    });
  });

  describe('SetDownload', () => {
    const setDownload = (allowed: boolean): FlipbookCommand => ({
      type: 'SetDownload',
      data: { allowed, now: NOW },
    });

    it('turns downloads off, then on again', () => {
      given([flipbookCreated()])
        .when(setDownload(false))
        .then([{ type: 'FlipbookDownloadChanged', data: { ...now, allowed: false } }]);
      given([
        flipbookCreated(),
        { type: 'FlipbookDownloadChanged', data: { ...past, allowed: false } },
      ])
        .when(setDownload(true))
        .then([{ type: 'FlipbookDownloadChanged', data: { ...now, allowed: true } }]);
    });

    it('does nothing when downloads are already as asked (allowed by default)', () => {
      given([flipbookCreated()]).when(setDownload(true)).thenNothingHappened();
    });

    it('refuses an unknown flipbook', () => {
      given([])
        .when(setDownload(false))
        .thenThrows((e) => e instanceof NotFound);
    });
  });

  describe('RecordRenderedPages', () => {
    const record = (versionId: string, pages: PageSize[] = PAGES): FlipbookCommand => ({
      type: 'RecordRenderedPages',
      data: { versionId, pages, now: NOW },
    });

    it('records the pages ready so far while processing', () => {
      given([flipbookCreated(), uploaded(V1, 1), started(V1)])
        .when(record(V1))
        .then([{ type: 'VersionPagesRendered', data: { ...now, versionId: V1, pages: PAGES } }]);
    });

    it('drops a batch that arrives after the outcome, or for a deleted or pending version', () => {
      given([flipbookCreated(), uploaded(V1, 1), started(V1), failed(V1)])
        .when(record(V1))
        .thenNothingHappened();
      given([flipbookCreated(), uploaded(V1, 1)])
        .when(record(V1))
        .thenNothingHappened();
      given([flipbookCreated(), uploaded(V1, 1), uploaded(V2, 2), started(V2), deleted(V2)])
        .when(record(V2))
        .thenNothingHappened();
    });

    it('records nothing for an empty batch', () => {
      given([flipbookCreated(), uploaded(V1, 1), started(V1)])
        .when(record(V1, []))
        .thenNothingHappened();
    });

    it('refuses an unknown version', () => {
      given([flipbookCreated()])
        .when(record(UNKNOWN))
        .thenThrows((e) => e instanceof NotFound);
    });
  });

  describe('FailProcessing', () => {
    it('fails a processing version with the reason given', () => {
      given([...v1Active(), uploaded(V2, 2, true), started(V2)])
        .when(fail(V2, 'encrypted PDF'))
        .then([
          {
            type: 'VersionProcessingFailed',
            data: { ...now, versionId: V2, reason: 'encrypted PDF' },
          },
        ]);
    });

    it.each([
      ['is already done', v2Done()],
      ['already failed', [...v1Active(), uploaded(V2, 2, true), started(V2), failed(V2)]],
      ['was deleted', [...v1Active(), uploaded(V2, 2, true), deleted(V2)]],
    ])('does nothing for a version that %s', (_, history) => {
      given(history).when(fail(V2)).thenNothingHappened();
    });
  });

  describe('ActivateVersion', () => {
    it('activates a done version, naming the version it replaces', () => {
      given(v2Done())
        .when(activate(V2))
        .then([activatedNow(V2, V1)]);
    });

    it('activates a done version with no previous version when none was active', () => {
      given([
        flipbookCreated(),
        uploaded(V1, 1, true),
        started(V1),
        failed(V1),
        uploaded(V2, 2, false),
        started(V2),
        processed(V2),
      ])
        .when(activate(V2))
        .then([activatedNow(V2, null)]);
    });

    it('does nothing for the version that is already active', () => {
      given(v1Active()).when(activate(V1)).thenNothingHappened();
    });

    it('refuses to activate a pending version, saying it activates when done', () => {
      given([...v1Active(), uploaded(V2, 2, false)])
        .when(activate(V2))
        .thenThrows(
          (e) =>
            e instanceof RuleBroken && /is pending/.test(e.message) && /when done/.test(e.message),
        );
    });

    it('refuses to activate a version that is still processing', () => {
      given([...v1Active(), uploaded(V2, 2, false), started(V2)])
        .when(activate(V2))
        .thenThrows((e) => e instanceof RuleBroken && /is processing/.test(e.message));
    });

    it('refuses to activate a version whose processing failed', () => {
      given([...v1Active(), uploaded(V2, 2, false), started(V2), failed(V2)])
        .when(activate(V2))
        .thenThrows(
          (e) =>
            e instanceof RuleBroken && /is error$/.test(e.message) && !/when done/.test(e.message),
        );
    });

    it('refuses to activate a deleted version', () => {
      given([...v2Done(), deleted(V2)])
        .when(activate(V2))
        .thenThrows((e) => e instanceof RuleBroken && /deleted/.test(e.message));
    });
  });

  describe('DeleteVersion', () => {
    it('deletes a version that is not active', () => {
      given(v2Done())
        .when(remove(V2))
        .then([{ type: 'VersionDeleted', data: { ...now, versionId: V2 } }]);
    });

    it('deletes a version that is still pending', () => {
      given([...v1Active(), uploaded(V2, 2, true)])
        .when(remove(V2))
        .then([{ type: 'VersionDeleted', data: { ...now, versionId: V2 } }]);
    });

    it('refuses to delete the active version', () => {
      given(v2Done())
        .when(remove(V1))
        .thenThrows((e) => e instanceof RuleBroken && /active/.test(e.message));
    });

    it('does nothing when a version is deleted twice', () => {
      given([...v2Done(), deleted(V2)])
        .when(remove(V2))
        .thenNothingHappened();
    });
  });

  describe('a flipbook that does not exist', () => {
    it.each([start(V1), complete(V1), fail(V1), activate(V1), remove(V1)])(
      'refuses $type with NotFound',
      (command) => {
        given([])
          .when(command)
          .thenThrows((e) => e instanceof NotFound && /Flipbook/.test(e.message));
      },
    );
  });

  describe('a version that does not exist', () => {
    it.each([start(UNKNOWN), complete(UNKNOWN), fail(UNKNOWN), activate(UNKNOWN), remove(UNKNOWN)])(
      'refuses $type with NotFound',
      (command) => {
        given(v1Active())
          .when(command)
          .thenThrows((e) => e instanceof NotFound && /Version/.test(e.message));
      },
    );
  });

  describe('a longer history', () => {
    it('keeps exactly one version active through a sequence of activations', () => {
      // Run commands through decide one after another, as the command handler would.
      const commands: FlipbookCommand[] = [
        create(),
        start(V1),
        complete(V1), // V1 activated automatically
        upload(V2, false),
        start(V2),
        complete(V2),
        activate(V2), // V2 replaces V1
        upload(V3, true),
        start(V3),
        complete(V3), // V3 activated automatically, replacing V2
        remove(V2),
        activate(V1), // back to V1
        upload(V4, false),
        start(V4),
        fail(V4, 'corrupt xref table'),
        activate(V1), // already active: nothing
      ];
      const history: FlipbookEvent[] = [];
      for (const command of commands) {
        history.push(...decide(command, history.reduce(evolve, initialState())));
      }

      const activations = history.filter(
        (e): e is VersionActivated => e.type === 'VersionActivated',
      );
      expect(activations.map((e) => [e.data.versionId, e.data.previousVersionId])).toEqual([
        [V1, null],
        [V2, V1],
        [V3, V2],
        [V1, V3],
      ]);

      const state = history.reduce(evolve, initialState());
      if (state.status !== 'created') throw new Error('flipbook should exist');
      expect(state.activeVersionId).toBe(V1);
      expect(state.lastNumber).toBe(4);
      expect(state.versions).toEqual({
        [V1]: { number: 1, status: 'done', activateOnDone: true, deleted: false },
        [V2]: { number: 2, status: 'done', activateOnDone: false, deleted: true },
        [V3]: { number: 3, status: 'done', activateOnDone: true, deleted: false },
        [V4]: { number: 4, status: 'error', activateOnDone: false, deleted: false },
      });

      // Replaying the history step by step, exactly one version is active after the first
      // activation, and it is always a done version that has not been deleted.
      let folded = initialState();
      for (const event of history) {
        folded = evolve(folded, event);
        if (folded.status !== 'created' || folded.activeVersionId === null) continue;
        const active = folded.versions[folded.activeVersionId];
        expect(active).toMatchObject({ status: 'done', deleted: false });
      }
    });
  });
});

describe('managing a flipbook', () => {
  const edit = (data: Omit<Extract<FlipbookCommand, { type: 'EditFlipbook' }>['data'], 'now'>) =>
    ({ type: 'EditFlipbook', data: { ...data, now: NOW } }) as FlipbookCommand;
  const deleteBook: FlipbookCommand = { type: 'DeleteFlipbook', data: { now: NOW } };
  const deletedBook: FlipbookEvent = { type: 'FlipbookDeleted', data: past };

  it('records only the fields that change, all in one decision', () => {
    given([flipbookCreated()])
      .when(
        edit({
          title: 'Summer catalogue',
          slug: 'spring-catalogue',
          description: 'Our summer range',
          archived: true,
          downloadAllowed: false,
        }),
      )
      .then([
        {
          type: 'FlipbookEdited',
          data: { ...now, title: 'Summer catalogue', description: 'Our summer range' },
        },
        { type: 'FlipbookDownloadChanged', data: { ...now, allowed: false } },
        { type: 'FlipbookArchived', data: now },
      ]);
  });

  it('records nothing for an edit that changes nothing', () => {
    given([flipbookCreated()])
      .when(edit({ title: 'Spring catalogue', archived: false, downloadAllowed: true }))
      .thenNothingHappened();
  });

  it('restores an archived flipbook, once', () => {
    const archived: FlipbookEvent = { type: 'FlipbookArchived', data: past };
    given([flipbookCreated(), archived])
      .when(edit({ archived: false }))
      .then([{ type: 'FlipbookRestored', data: now }]);
    given([flipbookCreated(), archived, { type: 'FlipbookRestored', data: past }])
      .when(edit({ archived: false }))
      .thenNothingHappened();
  });

  it('deletes a flipbook; after that it is not found, but a stale worker job is satisfied', () => {
    given([flipbookCreated(), uploaded(V1, 1)])
      .when(deleteBook)
      .then([{ type: 'FlipbookDeleted', data: now }]);
    const gone = [flipbookCreated(), uploaded(V1, 1), started(V1), deletedBook];
    for (const command of [deleteBook, edit({ title: 'Back?' }), upload(V2), activate(V1)]) {
      given(gone)
        .when(command)
        .thenThrows((error) => error instanceof NotFound);
    }
    for (const command of [complete(V1), fail(V1), start(V1, 2)]) {
      given(gone).when(command).thenNothingHappened();
    }
  });
});
