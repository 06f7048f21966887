// One flipbook in the dashboard, the forms' answers without a browser (the app in process with
// one processing lane, test/support/dashboardSpec.ts): the upload form without JavaScript (a
// refusal in words next to the file, the title kept; a PDF through to its page), versions
// (activate, delete after a confirmation), details, archive, downloads, the Activity trail naming
// the person, isolation between workspaces, CSRF refusals. What Chromium does (the upload's
// progress, the script's refusals, the versions table following processing, several files at
// once, axe, the screenshots) is test/e2e/dashboardFlipbooks.e2e.test.ts's.
import { describe, expect, it } from 'vitest';
import {
  client,
  corpus,
  createFlipbook,
  expectJson,
  pdf,
  SMALL_PDF,
  waitDone,
} from '../support/apiHelpers.ts';
import { useApp } from '../support/appSpec.ts';
import {
  alertsOf,
  dashboardOf,
  formActionsOf,
  h1Of,
  inputValueOf,
  statusesOf,
  textOf,
} from '../support/dashboardSpec.ts';
import { appFetch } from '../support/inProcess.ts';

/** Tests that wait for real processing: two cores, shared with other test runs. */
const SLOW = 240_000;

/** A file part as a browser sends it. */
const file = (bytes: Uint8Array, name: string) =>
  new File([bytes], name, { type: 'application/pdf' });
const multipart = (fields: Record<string, string | File>) => {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return form;
};

describe('dashboard: upload and one flipbook', () => {
  const app = useApp({ workers: 1 });
  const d = () => dashboardOf(app);

  /** A flipbook made through the API (its key is the actor), processed. */
  const processedFlipbook = async (title: string, c = app.c, name = SMALL_PDF) => {
    const made = await createFlipbook(c, { title }, pdf(name));
    await processed(made.flipbookId, made.versionId, c);
    return made;
  };
  const processed = (flipbookId: string, versionId: string, c = app.c) =>
    waitDone(c, flipbookId, versionId, SLOW);
  /** The versions table's row of version n, if any. */
  const row = (html: string, n: number) =>
    [...html.matchAll(/<tr data-version="[^"]*"[\s\S]*?<\/tr>/g)]
      .map((m) => m[0])
      .find((r) => new RegExp(`<th scope="row"[^>]*>Version ${n}\\b`).test(r));
  const versionHeads = (html: string) =>
    [...html.matchAll(/<th scope="row" data-label="Version">([\s\S]*?)<\/th>/g)].map((m) =>
      textOf(m[1] ?? ''),
    );
  const activity = (html: string) =>
    [...html.matchAll(/<p class="what">([\s\S]*?)<\/p>/g)].map((m) => textOf(m[1] ?? ''));
  const whenOfFirst = (html: string) =>
    textOf(/<p class="when">([\s\S]*?)<\/p>/.exec(html)?.[1] ?? '');
  const badge = (html: string) =>
    textOf(/class="head-meta"[\s\S]*?<span class="badge[^"]*">([^<]*)</.exec(html)?.[1] ?? '');
  const fileError = (html: string) =>
    textOf(/<p class="field-error" id="file-error"[^>]*>([^<]*)<\/p>/.exec(html)?.[1] ?? '');
  const action = (html: string | undefined, ending: string) => {
    const found = formActionsOf(html ?? '').find((a) => a.endsWith(ending));
    if (!found) throw new Error(`no ${ending} form`);
    return found;
  };
  const status = async (path: string) => (await appFetch(`${app.base}${path}`)).status;

  it('refuses a file that is not a PDF without JavaScript, in words next to the file, the title kept; a PDF goes through', async () => {
    const before = (await app.c.list()).body.flipbooks.length;
    const cy = await d().signedIn('cy@example.com');
    await cy.get('/dashboard/upload');
    const refused = await cy.upload(
      '/dashboard/upload',
      multipart({ title: 'My notes', file: file(Buffer.from('notes'), 'notes.pdf') }),
    );
    expect(refused.status).toBe(422);
    expect(fileError(refused.text)).toBe(
      'The file is not a kind this service takes (a PDF; a Word, PowerPoint or Excel document (.docx .doc .pptx .ppt .xlsx .xls), an OpenDocument one (.odt .odp .ods) or RTF; or an image (JPEG, PNG, WebP, TIFF), or a ZIP of images)',
    );
    expect(refused.text).toMatch(/<input id="file" name="file"[^>]* aria-invalid="true">/);
    expect(inputValueOf(refused.text, 'title')).toBe('My notes');
    expect((await app.c.list()).body.flipbooks.length).toBe(before);

    // ... and a real PDF goes through, to its own page.
    const made = await cy.upload(
      '/dashboard/upload',
      multipart({ title: 'My notes', file: file(corpus(SMALL_PDF), SMALL_PDF) }),
    );
    expect(made.url).toMatch(/\/dashboard\/flipbooks\/[0-9a-f-]{36}\?notice=uploaded$/);
    expect(statusesOf(made.text)[0]).toContain('Uploaded');
    expect(row(made.text, 1)).toBeDefined();
  });

  it(
    'uploads a second version without activating it, activates it, deletes the first after a confirmation',
    async () => {
      const { flipbookId } = await processedFlipbook('Versions');
      const dee = await d().signedIn('dee@example.com');
      const base = `/dashboard/flipbooks/${flipbookId}`;
      const first = await dee.get(base);
      expect(textOf(row(first.text, 1) ?? '')).toContain('Active');
      // The active version can be neither activated nor deleted.
      expect(row(first.text, 1)).not.toContain('<button');

      const uploaded = await dee.upload(
        `${base}/versions`,
        multipart({ activate: 'false', file: file(corpus(SMALL_PDF), SMALL_PDF) }),
      );
      expect(uploaded.url).toMatch(/\?notice=uploaded#versions$/);
      const two = (await app.c.flipbook(flipbookId)).body.versions.find(
        (v: { version: number }) => v.version === 2,
      );
      await processed(flipbookId, two.id);
      const page = (await dee.get(base)).text;
      expect(textOf(row(page, 2) ?? '')).toContain('Processed');
      expect(textOf(row(page, 2) ?? '')).not.toContain('Active');
      expect(textOf(row(page, 1) ?? '')).toContain('Active');
      expect(versionHeads(page)).toEqual(['Version 2', 'Version 1 Active']); // newest first

      const activated = await dee.post(action(row(page, 2), '/activate'), {});
      expect(activated.url).toMatch(/\?notice=activated#versions$/);
      expect(textOf(row(activated.text, 2) ?? '')).toContain('Active');
      const shown = await app.c.flipbook(flipbookId);
      expect(shown.body.versions.find((v: { is_active: boolean }) => v.is_active).version).toBe(2);

      const confirm = await dee.get(action(row(activated.text, 1), '/delete'));
      expect(confirm.url).toMatch(/\/versions\/[0-9a-f-]{36}\/delete$/);
      expect(h1Of(confirm.text)).toBe('Delete version 1?');
      // Cancel goes back and changes nothing...
      expect(confirm.text).toMatch(new RegExp(`<a [^>]*href="${base}#versions">Cancel</a>`));
      expect(row((await dee.get(base)).text, 1)).toBeDefined();
      // ...the confirmation deletes it.
      const deleted = await dee.post(action(confirm.text, '/delete'), {});
      expect(deleted.url).toMatch(/\?notice=version-deleted#versions$/);
      expect(row(deleted.text, 1)).toBeUndefined();
      expect((await app.c.flipbook(flipbookId)).body.versions.length).toBe(1);

      // The Activity says who did it, newest first.
      const lines = activity(deleted.text);
      expect(lines[0]).toBe('dee@example.com deleted version 1');
      expect(lines[1]).toBe('dee@example.com activated version 2');
      expect(lines).toContain(
        'dee@example.com uploaded version 2 (text_multicolumn.pdf, 77 KB), to stay inactive',
      );
      expect(lines.at(-1)).toMatch(/^API key \S+ created the flipbook “Versions”$/);
      expect(whenOfFirst(deleted.text)).toMatch(/ UTC · from \S+ · (Headless )?Chrome on Linux$/);
    },
    SLOW,
  );

  it(
    'edits the title and slug, archives and unarchives, switches downloads; the trail names the person',
    async () => {
      const { flipbookId, versionId } = await processedFlipbook('Before');
      await createFlipbook(app.c, { title: 'Taken', slug: 'taken' });
      const eve = await d().signedIn('eve@example.com');
      const base = `/dashboard/flipbooks/${flipbookId}`;
      await eve.get(base);

      // A slug in use is refused in words, what was typed is kept.
      const taken = await eve.post(base, { title: 'After', slug: 'taken', description: '' });
      expect(alertsOf(taken.text)).toContain(
        'Slug "taken" is already used by another flipbook in this workspace',
      );
      expect(inputValueOf(taken.text, 'edit-title')).toBe('After');
      const saved = await eve.post(base, {
        title: 'After',
        slug: 'after-all',
        description: 'Edited in the dashboard.',
      });
      expect(saved.url).toMatch(/\?notice=saved#details$/);
      expect(h1Of(saved.text)).toBe('After');
      const edited = (await app.c.flipbook(flipbookId)).body;
      expect([edited.title, edited.slug, edited.description]).toEqual([
        'After',
        'after-all',
        'Edited in the dashboard.',
      ]);

      const reader = `/f/${flipbookId}`;
      expect(await status(reader)).toBe(200);
      const archived = await eve.post(`${base}/archive`, {});
      expect(archived.url).toMatch(/\?notice=archived#availability$/);
      expect(badge(archived.text)).toBe('Archived');
      expect(await status(reader)).toBe(410);
      const unarchived = await eve.post(`${base}/unarchive`, {});
      expect(unarchived.url).toMatch(/\?notice=unarchived#availability$/);
      expect(await status(reader)).toBe(200);

      const original = `/files/originals/${versionId}`;
      expect(await status(original)).toBe(200);
      expect((await eve.post(`${base}/download`, { allow: 'false' })).url).toMatch(
        /\?notice=downloads-off#availability$/,
      );
      expect(await status(original)).toBe(404);
      // Only what its buttons send: anything else is refused in words and changes nothing.
      for (const allow of ['maybe', '']) {
        const odd = await eve.post(`${base}/download`, { allow });
        expect(odd.status).toBe(400);
        expect(odd.text).toContain('Invalid allow: must be true or false');
      }
      expect(await status(original)).toBe(404);
      const on = await eve.post(`${base}/download`, { allow: 'true' });
      expect(on.url).toMatch(/\?notice=downloads-on#availability$/);
      expect(on.text).toContain('Readers can download the original PDF.');
      expect(await status(original)).toBe(200);

      expect(activity(on.text).slice(0, 5)).toEqual([
        'eve@example.com allowed downloads',
        'eve@example.com turned downloads off',
        'eve@example.com unarchived the flipbook',
        'eve@example.com archived the flipbook',
        'eve@example.com changed the title to “After”, the slug to “after-all”, the description',
      ]);
      // The API's trail holds the same person, as the audit page defines the actor.
      const trail = (await app.c.get(`/flipbooks/${flipbookId}/events?per_page=100`)).body.events;
      const last = trail.at(-1);
      expect(last.type).toBe('FlipbookDownloadChanged');
      expect(last.metadata.actor).toMatchObject({ type: 'user', email: 'eve@example.com' });
      expect(last.metadata.client_ip).toBe('127.0.0.1');
    },
    SLOW,
  );

  it('sets who may read it: the reader a 404 for links only, back for everyone; a made-up value refused', async () => {
    const { flipbookId } = await processedFlipbook('Readers');
    const eve = await d().signedIn('eve@example.com');
    const base = `/dashboard/flipbooks/${flipbookId}`;
    await eve.get(base);
    const reader = `/f/${flipbookId}`;
    const links = await eve.post(`${base}/visibility`, { visibility: 'links' });
    expect(links.url).toMatch(/\?notice=visibility#readers$/);
    expect(await status(reader)).toBe(404);
    expect((await app.c.flipbook(flipbookId)).body.visibility).toBe('links');
    const refused = await eve.post(`${base}/visibility`, { visibility: 'everyone' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('Invalid visibility: one of');
    expect((await app.c.flipbook(flipbookId)).body.visibility).toBe('links');
    await eve.post(`${base}/visibility`, { visibility: 'public' });
    expect(await status(reader)).toBe(200);

    // Each change of who reads, said in words in its Activity (an API key's too).
    await app.c.patch(`/flipbooks/${flipbookId}`, { embed_origins: ['https://example.com'] });
    const made = await app.c.post(`/flipbooks/${flipbookId}/links`, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ label: 'Board <pack>' }),
    });
    expect(made.status).toBe(201);
    await app.c.patch(`/flipbooks/${flipbookId}/links/${made.body.id}`, { label: 'Board' });
    expect((await app.c.del(`/flipbooks/${flipbookId}/links/${made.body.id}`)).status).toBe(200);
    const said = activity((await eve.get(base)).text).slice(0, 6);
    expect(said.map((s) => s.replace(/^API key \S+ /, 'key '))).toEqual([
      'key revoked the share link “Board”',
      'key changed the share link “Board”',
      'key made the share link “Board <pack>”',
      'key let https://example.com embed it',
      'eve@example.com let anyone with its link read it',
      'eve@example.com let only people with a share link read it',
    ]);
  });

  it('keeps workspaces apart: another workspace’s flipbook or version is a 404 for every page and action', async () => {
    const other = await app.newWorkspace('globex');
    const theirs = await createFlipbook(client(app.api, other.key), { title: 'Theirs' });
    const ours = await createFlipbook(app.c, { title: 'Ours' });
    const fay = await d().signedIn('fay@example.com');
    await fay.get(`/dashboard/flipbooks/${ours.flipbookId}`);
    const f = `/dashboard/flipbooks/${theirs.flipbookId}`;
    const mixed = `/dashboard/flipbooks/${ours.flipbookId}/versions/${theirs.versionId}`;
    for (const path of [
      f,
      `${f}/delete`,
      `${f}/versions/${theirs.versionId}/delete`,
      `${f}/versions/${theirs.versionId}/status.json`,
      `${mixed}/delete`,
      `${mixed}/status.json`,
      '/dashboard/flipbooks/not-an-id',
    ]) {
      expect((await fay.get(path)).status, path).toBe(404);
    }
    const form = { title: 'Mine now', slug: 'mine', description: '', allow: 'false' };
    for (const path of [
      f,
      `${f}/archive`,
      `${f}/unarchive`,
      `${f}/download`,
      `${f}/delete`,
      `${f}/versions/${theirs.versionId}/activate`,
      `${f}/versions/${theirs.versionId}/delete`,
      `${mixed}/activate`,
      `${mixed}/delete`,
    ]) {
      expect((await fay.post(path, form, { follow: false })).status, path).toBe(404);
    }
    const upload = await fay.upload(
      `${f}/versions`,
      multipart({ file: file(Buffer.from('%PDF-1.4'), 'a.pdf') }),
      { follow: false },
    );
    expect(upload.status).toBe(404);
    const still = await client(app.api, other.key).flipbook(theirs.flipbookId);
    expectJson(still, 200);
    expect(still.body.title).toBe('Theirs');
    expect(still.body.versions.length).toBe(1);
  });

  it(
    'refuses forms without their CSRF token (403), uploads included, and changes nothing',
    async () => {
      const { flipbookId } = await processedFlipbook('Guarded');
      const gus = await d().signedIn('gus@example.com');
      const base = `/dashboard/flipbooks/${flipbookId}`;
      await gus.get(base);
      for (const path of ['/archive', '/download', '/delete', '']) {
        const reply = await gus.post(
          `${base}${path}`,
          { _csrf: '', title: 'Hijacked', slug: 'hijacked', allow: 'false' },
          { follow: false },
        );
        expect(reply.status, path).toBe(403);
      }
      const before = (await app.c.list()).body.flipbooks.length;
      const sneaky = () =>
        multipart({ _csrf: '', title: 'Sneaky', file: file(corpus(SMALL_PDF), 'x.pdf') });
      for (const [path, headers] of [
        ['/dashboard/upload', {}],
        ['/dashboard/upload', { 'x-csrf-token': 'wrong' }],
        [`${base}/versions`, {}],
      ] as const) {
        const reply = await gus.upload(path, sneaky(), { follow: false, headers });
        expect(reply.status, path).toBe(403);
      }
      // From another site, even with the right token.
      const foreign = await gus.upload(
        '/dashboard/upload',
        multipart({ file: file(corpus(SMALL_PDF), 'x.pdf') }),
        { follow: false, origin: 'https://evil.example' },
      );
      expect(foreign.status).toBe(403);
      expect((await app.c.list()).body.flipbooks.length).toBe(before);
      const shown = (await app.c.flipbook(flipbookId)).body;
      expect([shown.title, shown.status, shown.versions.length]).toEqual([
        'Guarded',
        'published',
        1,
      ]);
    },
    SLOW,
  );
});
