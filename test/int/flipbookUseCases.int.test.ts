// The Client API's use cases (src/app/flipbooks.ts, manageFlipbooks.ts) in process: no daemon, no
// HTTP, but a real PostgreSQL (both stores), a real blob directory and real pdfinfo, with the
// clock fixed. The rules a request meets after its input is checked: quotas, slugs, titles,
// idempotency, activation, deletion, and one workspace never reaching another's flipbooks. The
// HTTP side of the same rules (status codes, texts on the wire) is test/e2e/api.e2e.test.ts.
import { createHash, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import type { Caller } from '../../src/app/caller.ts';
import type { Clock } from '../../src/app/clock.ts';
import { runFlipbookCommand } from '../../src/app/commands.ts';
import { flipbookEvents } from '../../src/app/eventLog.ts';
import {
  activateVersion,
  deleteVersion,
  getFlipbook,
  listFlipbooks,
  versionStatus,
} from '../../src/app/flipbooks.ts';
import { deleteFlipbook, editFlipbook } from '../../src/app/manageFlipbooks.ts';
import type { ReceivedUpload } from '../../src/app/received.ts';
import { addVersion, createFlipbook, publishToSlug } from '../../src/app/uploads.ts';
import { NotFound, RuleBroken } from '../../src/domain/errors.ts';
import type { Plan } from '../../src/domain/workspace/workspace.ts';
import { parseListQuery } from '../../src/http/listQuery.ts';
import { markDone, SMALL_PDF } from '../support/apiHelpers.ts';
import { corpus } from '../support/corpus.ts';
import { workspaceInStore } from '../support/inStore.ts';
import { TEST_METADATA } from '../support/metadata.ts';
import { STORE_KINDS } from '../support/stores.ts';
import { useApiDeps } from '../support/useApiDeps.ts';

const NOW = new Date('2026-03-04T05:06:07.000Z');
const clock: Clock = { now: () => NOW };
/** the first page of the list, as GET /flipbooks with no query asks for it */
const LIST = parseListQuery(new URLSearchParams());

describe.each(STORE_KINDS)('the flipbook use cases in process (%s store)', (kind) => {
  const deps = useApiDeps(kind, clock);
  /** Whether the store holds an original (opened, then closed: no descriptor left behind). */
  const originalThere = async (sha: string) => {
    const opened = await deps.blobs.openOriginal(sha);
    await opened?.close();
    return opened !== null;
  };

  /** a workspace of its own for each test: quotas and slugs never meet another test's */
  const workspace = async (plan: Plan = 'team'): Promise<Caller> => {
    const made = await workspaceInStore(deps.store, plan, NOW);
    return {
      workspaceId: made.id,
      plan,
      metadata: {
        actor: { type: 'api_key', id: randomUUID(), name: 'ci' },
        request_id: 'req-use-case',
      },
    };
  };

  /** an upload as the HTTP side hands it over: in the blob store's temporary, hashed */
  const received = async (
    fields: Record<string, string> = {},
    file = SMALL_PDF,
    name = 'Spring catalogue.pdf',
  ): Promise<ReceivedUpload> => {
    const bytes = await readFile(corpus(file));
    const incoming = await deps.blobs.temporary();
    await pipeline(Readable.from([bytes]), incoming.stream);
    return {
      fields,
      file: {
        ref: incoming.ref,
        path: incoming.path,
        name,
        mimeType: 'application/pdf',
        size: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
      },
    };
  };

  /** processing ends in error, as the worker records it */
  const fail = (flipbookId: string, versionId: string) =>
    runFlipbookCommand(
      deps.store,
      flipbookId,
      {
        type: 'FailProcessing',
        data: { versionId, reason: 'The PDF is damaged: end of file inside array', now: NOW },
      },
      TEST_METADATA,
    );

  const refusal = async (work: Promise<unknown>) => {
    const error = await work.then(
      () => null,
      (e: unknown) => e,
    );
    if (!(error instanceof Error)) throw new Error('expected a refusal, got an answer');
    return error;
  };

  it('creates a flipbook titled after its file, with a slug from the title, dated by the clock', async () => {
    const acme = await workspace();
    const made = await createFlipbook(
      deps,
      acme,
      await received({}, SMALL_PDF, 'Spring catalogue'),
    );
    expect(made).toMatchObject({
      title: 'Spring catalogue',
      status: 'pending',
      created_at_unix: NOW.getTime() / 1000,
    });
    const shown = await getFlipbook(deps, acme, made.flipbook_id);
    expect(shown).toMatchObject({
      slug: 'spring-catalogue',
      url: `https://books.example/f/${made.flipbook_id}`,
      created_at: '2026-03-04T05:06:07Z',
    });
    const [created] = await flipbookEvents(deps.store, made.flipbook_id);
    expect(created?.type).toBe('FlipbookCreated');
    expect(created?.at).toBe(NOW.toISOString());
    expect(created?.data).toMatchObject({ titleFromFile: true, workspaceId: acme.workspaceId });
    // Who asked, and in which request: on the event, for the audit.
    expect(created?.metadata).toMatchObject({ request_id: 'req-use-case' });
  });

  it('gives a title already slugged the next free slug, and refuses a slug asked for that is taken', async () => {
    const acme = await workspace();
    const first = await createFlipbook(deps, acme, await received({ title: 'Annual report' }));
    const second = await createFlipbook(deps, acme, await received({ title: 'Annual report' }));
    expect((await getFlipbook(deps, acme, first.flipbook_id)).slug).toBe('annual-report');
    expect((await getFlipbook(deps, acme, second.flipbook_id)).slug).toBe('annual-report-2');
    const taken = await refusal(
      createFlipbook(deps, acme, await received({ title: 'Other', slug: 'annual-report' })),
    );
    expect(taken).toBeInstanceOf(RuleBroken);
    expect(taken.message).toBe(
      'Slug "annual-report" is already used by another flipbook in this workspace',
    );
    // Another workspace has slugs of its own.
    const other = await workspace();
    const elsewhere = await createFlipbook(deps, other, await received({ slug: 'annual-report' }));
    expect((await getFlipbook(deps, other, elsewhere.flipbook_id)).slug).toBe('annual-report');
  });

  it("never shows, changes or removes another workspace's flipbook: it is not found", async () => {
    const acme = await workspace();
    const rival = await workspace();
    const made = await createFlipbook(deps, acme, await received());
    const { flipbook_id: id, version_id: vid } = made;
    const attempts: [string, () => Promise<unknown>][] = [
      ['get', () => getFlipbook(deps, rival, id)],
      ['add a version', async () => addVersion(deps, rival, id, await received())],
      ['activate', () => activateVersion(deps, rival, id, vid)],
      ['status', () => versionStatus(deps, rival, id, vid)],
      ['delete a version', () => deleteVersion(deps, rival, id, vid)],
      ['edit', () => editFlipbook(deps, rival, id, { title: 'Mine now' })],
      ['delete', () => deleteFlipbook(deps, rival, id)],
    ];
    for (const [what, attempt] of attempts) {
      expect(await refusal(attempt()), what).toBeInstanceOf(NotFound);
    }
    expect((await listFlipbooks(deps, rival, LIST)).flipbooks).toEqual([]);
    expect(await getFlipbook(deps, acme, id)).toMatchObject({ title: 'Spring catalogue.pdf' });
    expect((await flipbookEvents(deps.store, id)).map((e) => e.type)).toEqual([
      'FlipbookCreated',
      'VersionUploaded',
    ]);
  });

  it('refuses a document over the plan, and keeps no original of it', async () => {
    const hobby = await workspace('free');
    const tooLong = await refusal(
      createFlipbook(deps, hobby, await received({}, 'text_freeculture.pdf')),
    );
    expect(tooLong).toBeInstanceOf(RuleBroken);
    expect(tooLong.message).toBe(
      'Too many pages for the free plan: the limit is 200 pages per document, this one has 352',
    );
    expect(await deps.blobs.listOriginals()).not.toContainEqual(
      expect.objectContaining({
        sha256: createHash('sha256')
          .update(await readFile(corpus('text_freeculture.pdf')))
          .digest('hex'),
      }),
    );
    expect((await listFlipbooks(deps, hobby, LIST)).flipbooks).toEqual([]);
  });

  it('stops at the free plan’s flipbook limit, also for creates at once', async () => {
    const hobby = await workspace('free');
    const uploads = await Promise.all(Array.from({ length: 12 }, () => received()));
    const outcomes = await Promise.allSettled(
      uploads.map((upload) => createFlipbook(deps, hobby, upload)),
    );
    const made = outcomes.filter((o) => o.status === 'fulfilled');
    const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason] : []));
    expect(made).toHaveLength(10);
    expect(refused.map((e: Error) => e.message)).toEqual([
      'Flipbook limit reached: the free plan allows 10 flipbooks',
      'Flipbook limit reached: the free plan allows 10 flipbooks',
    ]);
  });

  it('answers a create sent twice with one key the same, and makes one flipbook', async () => {
    const acme = await workspace();
    let replays = 0;
    const options = { clock, idempotencyKey: 'ci-run-42', replayed: () => replays++ };
    const first = await createFlipbook(deps, acme, await received(), options);
    const again = await createFlipbook(deps, acme, await received(), options);
    expect(again).toEqual(first);
    expect(replays).toBe(1);
    expect((await listFlipbooks(deps, acme, LIST)).flipbooks).toHaveLength(1);
  });

  it('activates a version only once it is done, and names the active one', async () => {
    const acme = await workspace();
    const made = await createFlipbook(deps, acme, await received());
    const { flipbook_id: id } = made;
    const second = await addVersion(deps, acme, id, await received({ activate: 'false' }));
    expect(second).toMatchObject({ version_status: 'pending', activate_on_done: false });
    const early = await refusal(activateVersion(deps, acme, id, second.version_id));
    expect(early).toBeInstanceOf(RuleBroken);
    expect(early.message).toMatch(/^Only a processed version can be activated/);

    await markDone(deps.store, id, made.version_id, 2);
    await markDone(deps.store, id, second.version_id, 3);
    const active = async () =>
      (await getFlipbook(deps, acme, id)).versions.find((v) => v.is_active)?.id;
    expect(await active()).toBe(made.version_id);
    expect(await activateVersion(deps, acme, id, second.version_id)).toEqual({
      success: true,
      active_version_id: second.version_id,
    });
    expect(await active()).toBe(second.version_id);
    expect(await versionStatus(deps, acme, id, second.version_id)).toMatchObject({
      status: 'done',
      pages: 3,
      is_active: true,
    });
    const events = await flipbookEvents(deps.store, id);
    expect(events.at(-1)).toMatchObject({ type: 'VersionActivated', at: NOW.toISOString() });
  });

  it('says what each reader URL shows: a flipbook whose every version failed is failed, not published', async () => {
    const acme = await workspace();
    const failing = await createFlipbook(deps, acme, await received({ title: 'Failing' }));
    await createFlipbook(deps, acme, await received({ title: 'Waiting' }));
    const done = await createFlipbook(deps, acme, await received({ title: 'Done' }));
    await fail(failing.flipbook_id, failing.version_id);
    await markDone(deps.store, done.flipbook_id, done.version_id, 2);
    const listed = async () =>
      Object.fromEntries(
        (await listFlipbooks(deps, acme, LIST)).flipbooks.map((f) => [f.title, f.availability]),
      );
    expect(await listed()).toEqual({
      Failing: 'failed',
      Waiting: 'unpublished',
      Done: 'available',
    });
    // The API's status stays the spec's: published, and so does its filter.
    const one = await getFlipbook(deps, acme, failing.flipbook_id);
    expect(one).toMatchObject({ status: 'published', availability: 'failed' });
    // A second version on its way: no longer nothing but failures.
    const again = await addVersion(deps, acme, failing.flipbook_id, await received());
    expect((await getFlipbook(deps, acme, failing.flipbook_id)).availability).toBe('unpublished');
    await fail(failing.flipbook_id, again.version_id);
    expect((await getFlipbook(deps, acme, failing.flipbook_id)).availability).toBe('failed');
    const archived = await editFlipbook(deps, acme, done.flipbook_id, { status: 'archived' });
    expect(archived.availability).toBe('archived');
    expect((await listed()).Done).toBe('archived');
  });

  it('publishes to a new slug once, then adds versions to that flipbook', async () => {
    const acme = await workspace();
    const [one, two] = await Promise.all([
      publishToSlug(deps, acme, 'price-list', await received()),
      publishToSlug(deps, acme, 'price-list', await received()),
    ]);
    expect(one?.flipbook_id).toBe(two?.flipbook_id);
    expect([one?.created, two?.created].sort()).toEqual([false, true]);
    expect((await listFlipbooks(deps, acme, LIST)).flipbooks).toHaveLength(1);
  });

  it('deletes a version and a flipbook: gone from the lists, their files removed, their events kept', async () => {
    const acme = await workspace();
    const made = await createFlipbook(deps, acme, await received({}, 'vec_vector.pdf'));
    const { flipbook_id: id, version_id: vid } = made;
    const sha = createHash('sha256')
      .update(await readFile(corpus('vec_vector.pdf')))
      .digest('hex');
    expect(await originalThere(sha)).toBe(true);
    expect(await deleteVersion(deps, acme, id, vid)).toEqual({ success: true });
    expect(await refusal(versionStatus(deps, acme, id, vid))).toBeInstanceOf(NotFound);

    expect(await deleteFlipbook(deps, acme, id)).toEqual({ success: true });
    expect(await refusal(getFlipbook(deps, acme, id))).toBeInstanceOf(NotFound);
    expect(await originalThere(sha)).toBe(false); // no other version used it
    expect((await flipbookEvents(deps.store, id)).map((e) => e.type)).toEqual([
      'FlipbookCreated',
      'VersionUploaded',
      'VersionDeleted',
      'FlipbookDeleted',
    ]);
  });
});
