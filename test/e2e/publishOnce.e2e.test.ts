// One URL per document and retries that never duplicate (beyond the spec, docs/api.md): publishing
// to a slug makes the flipbook once and versions after, atomically; an upload sent again with
// its Idempotency-Key, even after the connection broke between the server's commit and the
// client's read of the 201, gives the first answer again and creates nothing.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  expectJson,
  type FileSpec,
  form,
  pdf,
  type Reply,
  SMALL_PDF,
  send,
} from '../support/apiHelpers.ts';
import { flipbook } from '../support/cli.ts';
import { CORPUS } from '../support/corpus.ts';
import { useApi } from '../support/useApi.ts';

const OTHER_PDF = 'vec_vector.pdf';

describe('publishing once', () => {
  // The daemon's clock is the real time plus this file's seconds: the idempotency window ages.
  const clockFile = join(mkdtempSync(join(tmpdir(), 'flipbook-clock-')), 'offset');
  writeFileSync(clockFile, '0');
  const fx = useApi('postgres', ['--rate-limit', '0'], { FLIPBOOK_TEST_CLOCK_FILE: clockFile });

  const upload = (
    path: string,
    file: FileSpec,
    fields: Record<string, string> = {},
    key?: string,
    base = fx.api,
  ) =>
    send(`${base}${path}`, {
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
    const archived = await send(`${fx.api}/flipbooks/${made.body.flipbook_id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${fx.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'archived' }),
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

  it('refuses a malformed key before the upload is read', async () => {
    for (const key of ['', 'x'.repeat(256), 'tab\there']) {
      const answer = await upload('/flipbooks', pdf(SMALL_PDF), {}, key);
      expectJson(answer, 400);
      expect(answer.body.error).toMatch(/^Invalid Idempotency-Key/);
    }
  });

  it('gives the first answer to a retry after the connection broke before the 201 was read', async () => {
    const proxy = await cuttingProxy(fx.daemon.url);
    try {
      const key = 'cut-after-commit';
      const viaProxy = `${proxy.url}/api/v1`;
      const cut = await upload('/flipbooks', pdf(SMALL_PDF), { title: 'Cut off' }, key, viaProxy)
        .then((reply: Reply) => reply.status)
        .catch((error: Error) => error.name);
      expect(cut).toBe('TypeError'); // fetch failed: no answer
      const retry = await upload('/flipbooks', pdf(SMALL_PDF), { title: 'Cut off' }, key, viaProxy);
      expectJson(retry, 201);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      const made = await titled('Cut off');
      expect(made).toHaveLength(1);
      expect(made[0].id).toBe(retry.body.flipbook_id);
    } finally {
      await proxy.close();
    }
  });

  it('the CLI sends a key, retries a broken upload with it, and publishes a slug to one URL', async () => {
    const proxy = await cuttingProxy(fx.daemon.url);
    try {
      const env = { FLIPBOOK_URL: proxy.url, FLIPBOOK_API_KEY: fx.key };
      const file = join(CORPUS, SMALL_PDF);
      const first = await flipbook(['publish', file, '--title', 'CLI retried', '--json'], env);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stderr).toMatch(/network error .* retrying/);
      expect(await titled('CLI retried')).toHaveLength(1);
      const ids = JSON.parse(first.stdout);
      expect((await titled('CLI retried'))[0].id).toBe(ids.flipbook_id);

      const one = await flipbook(['publish', file, '--slug', 'cli-slug', '--json'], env);
      const two = await flipbook(
        ['publish', join(CORPUS, OTHER_PDF), '--slug', 'cli-slug', '--json'],
        env,
      );
      expect(one.code, one.stderr).toBe(0);
      expect(two.code, two.stderr).toBe(0);
      expect(JSON.parse(two.stdout).url).toBe(JSON.parse(one.stdout).url);
      expect(JSON.parse(two.stdout).flipbook_id).toBe(JSON.parse(one.stdout).flipbook_id);
      const bad = await flipbook(['publish', file, '--slug', 'Not A Slug'], env);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--slug: Invalid slug/);
    } finally {
      await proxy.close();
    }
  }, 120_000);

  it('forgets a key after 24 hours: the same key is then a new upload', async () => {
    const key = 'nightly-2026-11-26';
    const first = await upload('/flipbooks', pdf(SMALL_PDF), { title: 'Nightly' }, key);
    expectJson(first, 201);
    writeFileSync(clockFile, String(25 * 3600));
    try {
      const later = await upload('/flipbooks', pdf(SMALL_PDF), { title: 'Nightly' }, key);
      expectJson(later, 201);
      expect(later.body.flipbook_id).not.toBe(first.body.flipbook_id);
      expect(later.headers.get('idempotent-replayed')).toBeNull();
      // and from then on the key means the new one
      const again = await upload('/flipbooks', pdf(SMALL_PDF), { title: 'Nightly' }, key);
      expect(again.body.flipbook_id).toBe(later.body.flipbook_id);
    } finally {
      writeFileSync(clockFile, '0');
    }
  });
});

/**
 * A proxy to `target` that passes the first request on and cuts its client off at the first
 * byte of the answer (the server has committed, the client never hears); later ones pass.
 */
const cuttingProxy = async (target: string) => {
  let cutNext = true;
  const sockets = new Set<Socket>();
  const proxy: Server = createServer((inbound: Socket) => {
    const to = new URL(target);
    const outbound = connect(Number(to.port), to.hostname);
    sockets.add(inbound).add(outbound);
    inbound.pipe(outbound);
    outbound.on('data', (chunk) => {
      if (cutNext) {
        cutNext = false;
        inbound.destroy();
        outbound.destroy();
        return;
      }
      inbound.write(chunk);
    });
    outbound.on('end', () => inbound.end());
    inbound.on('error', () => outbound.destroy());
    outbound.on('error', () => inbound.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(proxy.address() as { port: number }).port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy(); // clients keep their connections alive
      await new Promise((r) => proxy.close(r));
    },
  };
};
