// One URL per document and retries that never duplicate (beyond the spec, docs/api.md): publishing
// to a slug makes the flipbook once and versions after, atomically; an upload sent again with
// its Idempotency-Key gives the first answer again and creates nothing, until the key is a day
// old (the app's clock moved, not waited). The whole app in process (test/support/appSpec.ts);
// a retry after the connection broke between the server's commit and the client's read of the
// 201, and the CLI's retries and slugs, are test/e2e/publishOnceRetries.e2e.test.ts's.
import { describe, expect, it } from 'vitest';
import { expectJson, type FileSpec, form, pdf, SMALL_PDF, send } from '../support/apiHelpers.ts';
import { useApp } from '../support/appSpec.ts';

const OTHER_PDF = 'vec_vector.pdf';

describe('publishing once', () => {
  const fx = useApp();

  const upload = (
    path: string,
    file: FileSpec,
    fields: Record<string, string> = {},
    key?: string,
  ) =>
    send(`${fx.api}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${fx.key}`,
        ...(key === undefined ? {} : { 'idempotency-key': key }),
      },
      body: form(fields, file),
    });
  const bySlug = (slug: string, file = pdf(SMALL_PDF), fields = {}, key?: string) =>
    upload(`/flipbooks/by-slug/${slug}/versions`, file, fields, key);
  const titled = async (title: string) =>
    (await fx.c.list(`search=${encodeURIComponent(title)}&per_page=100`)).body.flipbooks.filter(
      (f: { title: string }) => f.title === title,
    );

  it('makes the flipbook for a new slug, then versions of it: one URL', async () => {
    const first = await bySlug('catalogue', pdf(SMALL_PDF), { title: 'The catalogue' });
    expectJson(first, 201);
    expect(first.body).toMatchObject({
      slug: 'catalogue',
      created: true,
      title: 'The catalogue',
      status: 'pending',
      activate_on_done: true,
    });
    const second = await bySlug('catalogue', pdf(OTHER_PDF), { title: 'ignored for a version' });
    expectJson(second, 201);
    expect(second.body.flipbook_id).toBe(first.body.flipbook_id);
    expect(second.body.version_id).not.toBe(first.body.version_id);
    expect(second.body).toMatchObject({ created: false, title: 'The catalogue' });
    const book = await fx.c.flipbook(first.body.flipbook_id);
    expect(book.body.versions).toHaveLength(2);
    expect(book.body.slug).toBe('catalogue');
  });

  it('ends two simultaneous first publishes of a slug with one flipbook and two versions', async () => {
    const answers = await Promise.all([
      bySlug('race', pdf(SMALL_PDF), { title: 'Race' }),
      bySlug('race', pdf(OTHER_PDF), { title: 'Race' }),
    ]);
    for (const answer of answers) expectJson(answer, 201);
    expect(new Set(answers.map((a) => a.body.flipbook_id)).size).toBe(1);
    expect(answers.map((a) => a.body.created).sort()).toEqual([false, true]);
    expect(await titled('Race')).toHaveLength(1);
    expect((await fx.c.flipbook(answers[0]?.body.flipbook_id)).body.versions).toHaveLength(2);
  });

  it('refuses a bad slug before the upload, and an archived flipbook’s slug', async () => {
    expectJson(await bySlug('Not A Slug'), 400);
    const made = await bySlug('old-brochure');
    expectJson(made, 201);
    const archived = await fx.c.patch(`/flipbooks/${made.body.flipbook_id}`, {
      status: 'archived',
    });
    expectJson(archived, 200);
    const refused = await bySlug('old-brochure');
    expectJson(refused, 422);
    expect(refused.body.error).toMatch(/archived: unarchive it/);
  });

  it('answers a key sent again with the first answer, and creates nothing', async () => {
    const key = 'order-4711';
    const first = await upload('/flipbooks', pdf(SMALL_PDF), { title: 'Keyed' }, key);
    expectJson(first, 201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await upload('/flipbooks', pdf(SMALL_PDF), { title: 'Keyed' }, key);
    expectJson(again, 201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await titled('Keyed')).toHaveLength(1);

    // the key with another file, or other fields: refused, nothing made
    const otherFile = await upload('/flipbooks', pdf(OTHER_PDF), { title: 'Keyed' }, key);
    expectJson(otherFile, 422);
    expect(otherFile.body.error).toMatch(/Idempotency-Key already used for another request/);
    const otherTitle = await upload('/flipbooks', pdf(SMALL_PDF), { title: 'Keyed 2' }, key);
    expectJson(otherTitle, 422);
    expect(await titled('Keyed 2')).toHaveLength(0);

    // keys are the workspace's own: another workspace's same key is a new request
    const other = await fx.newWorkspace('keyed-elsewhere');
    const elsewhere = await send(`${fx.api}/flipbooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${other.key}`, 'idempotency-key': key },
      body: form({ title: 'Keyed' }, pdf(SMALL_PDF)),
    });
    expectJson(elsewhere, 201);
    expect(elsewhere.body.flipbook_id).not.toBe(first.body.flipbook_id);

    // versions and slugs take keys too
    const version = await upload(
      `/flipbooks/${first.body.flipbook_id}/versions`,
      pdf(OTHER_PDF),
      {},
      'v2-of-keyed',
    );
    expectJson(version, 201);
    const versionAgain = await upload(
      `/flipbooks/${first.body.flipbook_id}/versions`,
      pdf(OTHER_PDF),
      {},
      'v2-of-keyed',
    );
    expect(versionAgain.text).toBe(version.text);
    expect((await fx.c.flipbook(first.body.flipbook_id)).body.versions).toHaveLength(2);
    const slugged = await bySlug('keyed-slug', pdf(SMALL_PDF), {}, '"quoted key"');
    const sluggedAgain = await bySlug('keyed-slug', pdf(SMALL_PDF), {}, 'quoted key');
    expect(sluggedAgain.text).toBe(slugged.text); // the quoted form is the same key
  });

  it('makes the first answer again from the read tables when it was not kept (a crash)', async () => {
    const made = await upload('/flipbooks', pdf(SMALL_PDF), { title: 'Lost answer' }, 'lost-1');
    const version = await upload(
      `/flipbooks/${made.body.flipbook_id}/versions`,
      pdf(OTHER_PDF),
      { activate: 'false' },
      'lost-2',
    );
    const slugged = await bySlug('lost-slug', pdf(SMALL_PDF), {}, 'lost-3');
    // The answers' own row, as a crash between the command and keeping the answer leaves it.
    await fx.store.db.query(
      "UPDATE idempotent_uploads SET response = NULL WHERE key IN ('lost-1', 'lost-2', 'lost-3')",
    );
    const again = [
      await upload('/flipbooks', pdf(SMALL_PDF), { title: 'Lost answer' }, 'lost-1'),
      await upload(
        `/flipbooks/${made.body.flipbook_id}/versions`,
        pdf(OTHER_PDF),
        { activate: 'false' },
        'lost-2',
      ),
      await bySlug('lost-slug', pdf(SMALL_PDF), {}, 'lost-3'),
    ];
    const firsts = [made, version, slugged];
    for (const [i, remade] of again.entries()) {
      const first = firsts[i] as typeof remade;
      expectJson(first, 201);
      expectJson(remade, 201);
      expect(remade.headers.get('idempotent-replayed')).toBe('true');
      // the same fields in the same order; the estimate is made again from today's figures
      const { estimated_seconds: _, ...same } = first.body;
      expect(Object.keys(remade.body)).toEqual(Object.keys(first.body));
      expect(remade.body).toMatchObject(same);
    }
    expect(again[1]?.body.activate_on_done).toBe(false);
    expect(again[2]?.body.created).toBe(true);
    expect(await titled('Lost answer')).toHaveLength(1);
  });

  it('refuses a malformed key before the upload is read', async () => {
    for (const key of ['', 'x'.repeat(256), 'tab\there']) {
      const answer = await upload('/flipbooks', pdf(SMALL_PDF), {}, key);
      expectJson(answer, 400);
      expect(answer.body.error).toMatch(/^Invalid Idempotency-Key/);
    }
  });

  it('forgets a key after 24 hours: the same key is then a new upload', async () => {
    const key = 'nightly-2026-11-26';
    const first = await upload('/flipbooks', pdf(SMALL_PDF), { title: 'Nightly' }, key);
    expectJson(first, 201);
    fx.clock.advance(25 * 3_600_000);
    try {
      const later = await upload('/flipbooks', pdf(SMALL_PDF), { title: 'Nightly' }, key);
      expectJson(later, 201);
      expect(later.body.flipbook_id).not.toBe(first.body.flipbook_id);
      expect(later.headers.get('idempotent-replayed')).toBeNull();
      // and from then on the key means the new one
      const again = await upload('/flipbooks', pdf(SMALL_PDF), { title: 'Nightly' }, key);
      expect(again.body.flipbook_id).toBe(later.body.flipbook_id);
    } finally {
      fx.clock.advance(-25 * 3_600_000);
    }
  });
});
