// Previews (issue "Review a PDF change like a code change"; docs/ci.md): a change published under
// a name to a slug, processed but never live by itself, read at an unguessable address, then
// promoted (exactly the reviewed version goes live) or deleted. The whole app in process, one
// processing lane, on PostgreSQL and a blob folder.
import { describe, expect, it } from 'vitest';
import { sweepPreviews } from '../../src/app/previewSweep.ts';
import { logger } from '../../src/log.ts';
import {
  expectError,
  expectJson,
  type FileSpec,
  form,
  type Json,
  pdf,
  SMALL_PDF,
  send,
  UUID_RE,
} from '../support/apiHelpers.ts';
import { type UsedApp, useApp } from '../support/appSpec.ts';
import { appFetch } from '../support/inProcess.ts';
import { waitFor } from '../support/waitFor.ts';

const OTHER_PDF = 'vec_vector.pdf';
const DAY = 86_400_000;
const NAME_RULE =
  'A preview name is 1 to 64 characters of a-z, 0-9, ".", "_" and "-", not starting with "." (e.g. pr-128)';

const path = (slug: string, name = '') =>
  `/flipbooks/by-slug/${slug}/previews${name ? `/${name}` : ''}`;

/** The preview endpoints of one app. */
const previewApi = (fx: UsedApp) => ({
  publish: (slug: string, name: string, file: FileSpec = pdf(SMALL_PDF), key?: string) =>
    send(`${fx.api}${path(slug, name)}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${fx.key}`,
        ...(key === undefined ? {} : { 'idempotency-key': key }),
      },
      body: form({}, file),
    }),
  preview: (slug: string, name: string) => fx.c.get(path(slug, name)),
});

describe('previews', () => {
  const fx = useApp({ workers: 1 });
  const { publish, preview } = previewApi(fx);
  const done = (slug: string, name: string) =>
    waitFor(`preview ${name} done`, async () => {
      const reply = await preview(slug, name);
      expectJson(reply, 200);
      return reply.body.status === 'done' ? (reply.body as Json) : undefined;
    });
  const readerStatus = async (flipbookId: string) =>
    (await appFetch(`${fx.base}/f/${flipbookId}`)).status;

  it('makes a flipbook with no live version for a new slug; promoted, exactly that version goes live', async () => {
    const made = await publish('manual', 'pr-1');
    expectJson(made, 201);
    expect(made.body).toMatchObject({
      name: 'pr-1',
      slug: 'manual',
      created: true,
      status: 'pending',
    });
    expect(made.body.version_id).toMatch(UUID_RE);
    // the address: the app's own, with a token that is neither the version's id alone nor guessable
    expect(made.body.preview_url).toMatch(
      new RegExp(`^${fx.base}/p/p\\.${made.body.version_id}\\.[A-Za-z0-9_-]{22}$`),
    );
    const { flipbook_id: flipbookId, version_id: versionId } = made.body;
    await done('manual', 'pr-1');
    // compared a moment after: with nothing live, it says so
    const shown = await waitFor('pr-1 compared', async () => {
      const reply = await preview('manual', 'pr-1');
      return reply.body.compare ? (reply.body as Json) : undefined;
    });
    expect(shown).toMatchObject({
      name: 'pr-1',
      flipbook_id: flipbookId,
      version_id: versionId,
      pages: 3,
      pages_done: 3,
      preview_url: made.body.preview_url,
      compare: { against_version_id: null, failure: expect.stringMatching(/^No version/) },
    });
    // its files: at its address, never at the public one (the book is public)
    const file = `pages/${versionId}/1/mid.jpg`;
    expect((await appFetch(`${made.body.preview_url}/${file}`)).status).toBe(200);
    expect((await appFetch(`${fx.base}/files/${file}`)).status).toBe(404);
    expect((await appFetch(`${fx.base}/files/pages/${versionId}/text.json`)).status).toBe(404);
    // processed, and still not live: no active version, the reader a 404
    const book = await fx.c.flipbook(flipbookId);
    expect(book.body.versions.map((v: Json) => [v.id, v.is_active])).toEqual([[versionId, false]]);
    expect(book.body.pages).toEqual([]);
    expect(await readerStatus(flipbookId)).toBe(404);

    const promoted = await fx.c.post(`${path('manual', 'pr-1')}/promote`);
    expectJson(promoted, 200);
    expect(promoted.body).toEqual({
      success: true,
      flipbook_id: flipbookId,
      active_version_id: versionId,
    });
    const live = await fx.c.flipbook(flipbookId);
    expect(live.body.versions[0]).toMatchObject({ id: versionId, is_active: true });
    expect(live.body.pages).toHaveLength(3);
    expect(await readerStatus(flipbookId)).toBe(200);
    // the preview is gone, its address too (the version's files are the live book's now)
    expectError(await preview('manual', 'pr-1'), 404, /Preview not found/);
    expect((await appFetch(made.body.preview_url)).status).toBe(404);
    expect((await appFetch(`${made.body.preview_url}/pages/${versionId}/1/mid.jpg`)).status).toBe(
      404,
    );
    expect((await appFetch(`${fx.base}/files/pages/${versionId}/1/mid.jpg`)).status).toBe(200);
    expect((await fx.c.get(path('manual'))).body).toEqual({ previews: [] });
    const types = (await fx.eventsOf(flipbookId)).map((e) => e.type);
    expect(types.slice(-2)).toEqual(['VersionActivated', 'PreviewPromoted']);
  });

  it('replaces the version of a name pushed again, deleting the old one; the live version stays', async () => {
    const first = await publish('catalogue', 'pr-2');
    expectJson(first, 201);
    const { flipbook_id: flipbookId } = first.body;
    await done('catalogue', 'pr-2');
    // a real publish to the slug makes a live version beside the preview
    const live = await send(`${fx.api}/flipbooks/by-slug/catalogue/versions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fx.key}` },
      body: form({}, pdf(SMALL_PDF)),
    });
    expectJson(live, 201);
    await waitFor('the publish live', async () => {
      const book = await fx.c.flipbook(flipbookId);
      const active = book.body.versions.some(
        (v: Json) => v.id === live.body.version_id && v.is_active,
      );
      return active || undefined;
    });

    const second = await publish('catalogue', 'pr-2', pdf(OTHER_PDF));
    expectJson(second, 201);
    expect(second.body).toMatchObject({ flipbook_id: flipbookId, created: false });
    expect(second.body.version_id).not.toBe(first.body.version_id);
    const listed = await fx.c.get(path('catalogue'));
    expectJson(listed, 200);
    expect(listed.body.previews.map((p: Json) => [p.name, p.version_id])).toEqual([
      ['pr-2', second.body.version_id],
    ]);
    // the replaced version and its files are gone; the live one is untouched
    expectError(await fx.c.status(flipbookId, first.body.version_id), 404);
    expect(
      (await appFetch(`${fx.base}/files/pages/${first.body.version_id}/1/mid.jpg`)).status,
    ).toBe(404);
    const book = await fx.c.flipbook(flipbookId);
    expect(book.body.versions.find((v: Json) => v.is_active)?.id).toBe(live.body.version_id);
    const published = (await fx.eventsOf(flipbookId)).filter((e) => e.type === 'PreviewPublished');
    expect(published.at(-1)?.data).toMatchObject({
      name: 'pr-2',
      versionId: second.body.version_id,
      replacedVersionId: first.body.version_id,
    });
  });

  it('answers the same upload sent again with its Idempotency-Key with the first answer', async () => {
    const first = await publish('retried', 'pr-3', pdf(SMALL_PDF), 'push-1');
    const again = await publish('retried', 'pr-3', pdf(SMALL_PDF), 'push-1');
    expectJson(again, 201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await fx.c.get(path('retried'))).body.previews).toHaveLength(1);
  });

  it('deletes a preview: 204, then it, its version and its files are 404', async () => {
    const made = await publish('deleted', 'pr-4');
    expectJson(made, 201);
    await done('deleted', 'pr-4');
    const gone = await fx.c.del(path('deleted', 'pr-4'));
    expect(gone.status).toBe(204);
    expect(gone.text).toBe('');
    expectError(await preview('deleted', 'pr-4'), 404, /Preview not found/);
    expectError(await fx.c.status(made.body.flipbook_id, made.body.version_id), 404);
    expect(
      (await appFetch(`${fx.base}/files/pages/${made.body.version_id}/1/mid.jpg`)).status,
    ).toBe(404);
    expectError(await fx.c.del(path('deleted', 'pr-4')), 404, /Preview not found/);
  });
});

describe('previews refused', () => {
  const fx = useApp();
  const { publish, preview } = previewApi(fx);

  it('refuses bad names, unknown slugs and previews, another workspace, and a promotion too early', async () => {
    // (a name starting with a dot: `.` and `..` are path steps to every HTTP client)
    for (const bad of ['PR-1', 'a'.repeat(65), 'pr%201', '.x']) {
      expectJson(await publish('manual', bad), 400, NAME_RULE);
      expectJson(await preview('manual', bad), 400, NAME_RULE);
    }
    expectError(await fx.c.get(path('no-such-slug')), 404, /Flipbook not found/);
    expectError(await preview('no-such-slug', 'pr-1'), 404, /Flipbook not found/);
    const made = await publish('early', 'pr-5');
    expectJson(made, 201);
    expectError(await preview('early', 'pr-404'), 404, /Preview not found/);
    // (no processing in this app: the version stays pending)
    expectError(
      await fx.c.post(`${path('early', 'pr-5')}/promote`),
      409,
      /^Preview pr-5 is pending: only a processed preview can be promoted; wait until it is done$/,
    );

    const other = await fx.newWorkspace('other');
    const theirs = await send(`${fx.api}${path('early', 'pr-5')}`, {
      headers: { authorization: `Bearer ${other.key}` },
    });
    expectError(theirs, 404, /Flipbook not found/);
  });
});

describe('old previews swept (serve --preview-ttl)', () => {
  const fx = useApp({ workers: 1 });
  const { publish, preview } = previewApi(fx);

  it('deletes the previews last pushed to before the limit, as the system, with their files; keeps the rest', async () => {
    const old = await publish('swept', 'pr-old');
    expectJson(old, 201);
    fx.clock.advance(20 * DAY);
    const fresh = await publish('swept', 'pr-fresh');
    expectJson(fresh, 201);
    for (const name of ['pr-old', 'pr-fresh'])
      await waitFor(`${name} done`, async () =>
        (await preview('swept', name)).body.status === 'done' ? true : undefined,
      );
    fx.clock.advance(11 * DAY); // pr-old pushed 31 days ago, pr-fresh 11
    const deps = { store: fx.store, blobs: fx.blobs, clock: fx.clock, log: logger };
    expect(await sweepPreviews(deps, 30 * DAY)).toBe(1);
    expectError(await preview('swept', 'pr-old'), 404, /Preview not found/);
    expectJson(await preview('swept', 'pr-fresh'), 200);
    expect((await appFetch(old.body.preview_url)).status).toBe(404);
    expect(await fx.blobs.readPageBytes(old.body.version_id, 1, 'min.jpg')).toBeNull();
    const deleted = (await fx.eventsOf(old.body.flipbook_id)).find(
      (e) => e.type === 'PreviewDeleted',
    );
    expect(deleted?.data).toMatchObject({ name: 'pr-old', expired: true });
    expect(deleted?.metadata).toMatchObject({ actor: { type: 'system' } });
    // nothing more to sweep
    expect(await sweepPreviews(deps, 30 * DAY)).toBe(0);
  });
});

describe('a preview’s readers', () => {
  const fx = useApp({ workers: 1 });
  const { publish, preview } = previewApi(fx);
  const CHROME =
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

  it('are counted apart: in the preview’s figures, never in its flipbook’s', async () => {
    const made = await publish('counted', 'pr-1');
    expectJson(made, 201);
    await waitFor('pr-1 done', async () =>
      (await preview('counted', 'pr-1')).body.status === 'done' ? true : undefined,
    );
    const page = await (await appFetch(made.body.preview_url)).text();
    const data = JSON.parse(
      /<script type="application\/json" id="flipbook-data">([\s\S]*?)<\/script>/.exec(page)?.[1] ??
        '{}',
    );
    expect(data.beacon?.token).toEqual(expect.any(String));
    const sent = await appFetch(`${fx.base}/b`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'user-agent': CHROME },
      body: JSON.stringify({
        v: 1,
        t: data.beacon.token,
        e: [{ k: 'open' }, { k: 'page', p: 1, s: 4 }],
      }),
    });
    expect(sent.status).toBe(202);
    // (the beacon is answered before it is counted: looked at until it is)
    const reading = await waitFor('the preview’s open counted', async () => {
      await fx.flushFigures();
      const { body } = await preview('counted', 'pr-1');
      return body.reading.opens > 0 ? body.reading : undefined;
    });
    expect(reading).toMatchObject({ opens: 1, readers: 1 });
    const book = await fx.c.get(`/flipbooks/${made.body.flipbook_id}/stats`);
    expectJson(book, 200);
    expect(book.body).toMatchObject({ opens: 0, readers: 0 });
  });
});
