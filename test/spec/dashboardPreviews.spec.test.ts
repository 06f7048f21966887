// A flipbook's previews in the dashboard (docs/dashboard.md, "One flipbook"), the forms' answers
// without a browser (test/support/dashboardSpec.ts): the list on the flipbook's page (name, who
// pushed, status, what changed in the pull request's words), Promote and Delete each after a
// confirmation, a promotion refused in the use case's words before the preview is processed,
// another workspace's 404, CSRF. Previews are published as a pipeline does, through the API with
// the workspace's key, from a corpus document with a known edit (its last page dropped). What
// Chromium shows (the list on a desktop and a phone, axe) is
// test/e2e/dashboardFlipbooks.e2e.test.ts's.

import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summaryLine } from '../../packages/cli/src/previewReport.ts';
import type { Preview } from '../../src/contract/previews.ts';
import {
  client,
  expectJson,
  type FileSpec,
  form,
  type Json,
  pdf,
  SMALL_PDF,
  send,
} from '../support/apiHelpers.ts';
import { type UsedApp, useApp } from '../support/appSpec.ts';
import { CORPUS } from '../support/corpus.ts';
import {
  alertsOf,
  cellOf,
  dashboardOf,
  formActionsOf,
  h1Of,
  rowsOf,
  statusesOf,
  textOf,
} from '../support/dashboardSpec.ts';
import { editsFolder, pagesFrom } from '../support/editedPdfs.ts';
import { waitFor } from '../support/waitFor.ts';

/** Tests that wait for real processing: two cores, shared with other test runs. */
const SLOW = 240_000;

/** What a pipeline sends: a preview, or a publish to the slug (`flipbook publish --slug`). */
const pipelineOf = (app: UsedApp, key = app.key) => {
  const post = (path: string, file: FileSpec) =>
    send(`${app.api}/flipbooks/by-slug/${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form({}, file),
    });
  const api = client(app.api, key);
  return {
    preview: async (slug: string, name: string, file: FileSpec = pdf(SMALL_PDF)) => {
      const made = await post(`${slug}/previews/${name}`, file);
      expectJson(made, 201);
      return made.body as { flipbook_id: string; version_id: string; preview_url: string };
    },
    publish: async (slug: string, file: FileSpec = pdf(SMALL_PDF)) => {
      const made = await post(`${slug}/versions`, file);
      expectJson(made, 201);
      return made.body as { flipbook_id: string; version_id: string };
    },
    shown: (slug: string, name: string) => api.get(`/flipbooks/by-slug/${slug}/previews/${name}`),
    api,
  };
};

/** The Previews table's row of a preview, markup kept. */
const previewRow = (html: string, name: string) =>
  rowsOf(html, name).find((row) => row.includes(`data-preview="${name}"`));
const previewsPanel = (html: string) =>
  /<section class="panel" id="previews"[\s\S]*?<\/section>/.exec(html)?.[0] ?? '';
const action = (html: string | undefined, ending: string) => {
  const found = formActionsOf(html ?? '').find((a) => a.endsWith(ending));
  if (!found) throw new Error(`no ${ending} form`);
  return found;
};

describe('dashboard: a flipbook’s previews', () => {
  const app = useApp({ workers: 1 });
  const d = () => dashboardOf(app);
  let folder = '';
  /** text_multicolumn.pdf without its third page: "1 page removed" against the original. */
  let shorter: FileSpec;

  beforeAll(async () => {
    folder = await editsFolder();
    const out = await pagesFrom(join(folder, 'shorter.pdf'), [join(CORPUS, SMALL_PDF), '1-2']);
    shorter = { bytes: await readFile(out), name: 'shorter.pdf', type: 'application/pdf' };
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  /** A flipbook at `slug` with a live version, processed. */
  const liveBook = async (slug: string) => {
    const { publish, api } = pipelineOf(app);
    const made = await publish(slug);
    await waitFor(
      `${slug} live`,
      async () => {
        const book = (await api.flipbook(made.flipbook_id)).body;
        return book.versions.some((v: Json) => v.id === made.version_id && v.is_active)
          ? made
          : undefined;
      },
      SLOW,
      100,
    );
    return made.flipbook_id;
  };
  /** The preview once compared (its answer, as `flipbook publish --preview --wait` waits for). */
  const compared = (slug: string, name: string) =>
    waitFor(
      `preview ${name} compared`,
      async () => {
        const reply = await pipelineOf(app).shown(slug, name);
        expectJson(reply, 200);
        expect(reply.body.status).not.toBe('error');
        return reply.body.compare ? (reply.body as Preview) : undefined;
      },
      SLOW,
      100,
    );

  it(
    'lists each preview with its name, who pushed it, its status and what changed; none: how to make one',
    async () => {
      const flipbookId = await liveBook('manual');
      const ann = await d().signedIn('ann@example.com');
      const base = `/dashboard/flipbooks/${flipbookId}`;
      const empty = previewsPanel((await ann.get(base)).text);
      expect(textOf(empty)).toContain(
        'No previews. A pipeline makes one per pull request with flipbook publish FILE --slug manual --preview pr-128',
      );
      expect(textOf(empty)).toContain('docs/ci.md');

      const { preview } = pipelineOf(app);
      const made = await preview('manual', 'pr-7', shorter);
      const answer = await compared('manual', 'pr-7');
      expect(summaryLine(answer)).toBe('1 page removed');
      const page = (await ann.get(base)).text;
      const row = previewRow(page, 'pr-7');
      expect(row).toBeDefined();
      expect(cellOf(row ?? '', 'Status')).toBe('Processed');
      expect(cellOf(row ?? '', 'Changes')).toBe('1 page removed');
      // Who: the pipeline's key, as the Activity names actors; when: the last push, in UTC.
      const pushed = /<td data-label="Pushed \(UTC\)">([\s\S]*?)<\/td>/.exec(row ?? '')?.[1];
      expect(textOf(pushed ?? '')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d by API key \S+$/);
      // Open: the preview's own address, in a new tab; Promote and Delete ask first (GET).
      expect(row).toContain(
        `<a class="button" href="${made.preview_url}" target="_blank" rel="noopener" aria-label="Open pr-7 (in a new tab)">Open</a>`,
      );
      expect(formActionsOf(row ?? '')).toEqual([
        `${base}/previews/pr-7/promote`,
        `${base}/previews/pr-7/delete`,
      ]);
      expect(row).not.toContain('method="post"');
      // Its version is in the Versions table too, marked as the preview's.
      expect(page).toMatch(
        /Version 2 <span class="badge waiting preview-of" title="Preview pr-7">Preview pr-7<\/span><\/th>/,
      );
      // The Activity says it in words too.
      expect(page).toMatch(/API key \S+<\/strong> published preview pr-7/);
    },
    SLOW,
  );

  it(
    'promotes after a confirmation: the flipbook’s active version becomes the preview’s, the preview is gone',
    async () => {
      const flipbookId = await liveBook('catalogue');
      const { preview, api } = pipelineOf(app);
      const made = await preview('catalogue', 'pr-8', shorter);
      await compared('catalogue', 'pr-8');
      const bo = await d().signedIn('bo@example.com', { role: 'member' });
      const base = `/dashboard/flipbooks/${flipbookId}`;
      const page = (await bo.get(base)).text;

      const confirm = await bo.get(action(previewRow(page, 'pr-8'), '/promote'));
      expect(confirm.status).toBe(200);
      expect(h1Of(confirm.text)).toBe('Promote pr-8?');
      expect(textOf(confirm.text)).toContain('Its version (2 pages, exactly as reviewed');
      expect(confirm.text).toMatch(new RegExp(`<a [^>]*href="${base}#previews">Cancel</a>`));
      // Asking changed nothing.
      expect(
        (await api.flipbook(flipbookId)).body.versions.find((v: Json) => v.is_active).id,
      ).not.toBe(made.version_id);

      const promoted = await bo.post(action(confirm.text, '/promote'), {});
      expect(promoted.url).toMatch(/\?notice=promoted#versions$/);
      expect(statusesOf(promoted.text)[0]).toBe(
        'Promoted: the preview’s version is now the active one, and the reader link shows it.',
      );
      const book = (await api.flipbook(flipbookId)).body;
      expect(book.versions.find((v: Json) => v.is_active).id).toBe(made.version_id);
      expect(book.pages).toHaveLength(2);
      expect(previewRow(promoted.text, 'pr-8')).toBeUndefined();
      expect(textOf(previewsPanel(promoted.text))).toContain('No previews.');
      // The event names the person who promoted it.
      const events = await app.eventsOf(flipbookId);
      const last = events.at(-1);
      expect(last?.type).toBe('PreviewPromoted');
      expect(last?.metadata.actor).toMatchObject({ type: 'user', email: 'bo@example.com' });
      expect(promoted.text).toContain('bo@example.com</strong> promoted preview pr-8');
    },
    SLOW,
  );

  it(
    'deletes after a confirmation: the preview, its version and its address are gone; the live version stays',
    async () => {
      const flipbookId = await liveBook('brochure');
      const { preview, shown, api } = pipelineOf(app);
      const made = await preview('brochure', 'pr-9', shorter);
      await compared('brochure', 'pr-9');
      const cy = await d().signedIn('cy@example.com');
      const base = `/dashboard/flipbooks/${flipbookId}`;
      const page = (await cy.get(base)).text;

      const confirm = await cy.get(action(previewRow(page, 'pr-9'), '/delete'));
      expect(h1Of(confirm.text)).toBe('Delete pr-9?');
      expect(previewRow((await cy.get(base)).text, 'pr-9')).toBeDefined();
      const deleted = await cy.post(action(confirm.text, '/delete'), {});
      expect(deleted.url).toMatch(/\?notice=preview-deleted#previews$/);
      expect(statusesOf(deleted.text)[0]).toBe(
        'The preview was deleted, with its version and pages.',
      );
      expect(previewRow(deleted.text, 'pr-9')).toBeUndefined();
      expect((await shown('brochure', 'pr-9')).status).toBe(404);
      expect((await send(made.preview_url)).status).toBe(404);
      const book = (await api.flipbook(flipbookId)).body;
      expect(book.versions.map((v: Json) => v.id)).not.toContain(made.version_id);
      expect(book.versions.find((v: Json) => v.is_active)).toBeDefined();
      expect(deleted.text).toContain('cy@example.com</strong> deleted preview pr-9');
    },
    SLOW,
  );
});

describe('dashboard: previews refused (no processing: versions stay pending)', () => {
  const app = useApp();
  const d = () => dashboardOf(app);

  it('refuses a promotion before the preview is processed, in the use case’s words; shows it waiting', async () => {
    const { preview, shown } = pipelineOf(app);
    const made = await preview('draft', 'pr-1');
    const dee = await d().signedIn('dee@example.com');
    const base = `/dashboard/flipbooks/${made.flipbook_id}`;
    const page = (await dee.get(base)).text;
    const row = previewRow(page, 'pr-1');
    expect(cellOf(row ?? '', 'Status')).toBe('Waiting to be processed');
    expect(cellOf(row ?? '', 'Changes')).toBe('Processing…');
    // Not offered before it is done...
    expect(formActionsOf(row ?? '')).toEqual([`${base}/previews/pr-1/delete`]);
    // ...and a form sent anyway (a page read before a new push) is refused in words.
    const refused = await dee.post(`${base}/previews/pr-1/promote`, {});
    expect(refused.status).toBe(409);
    expect(alertsOf(refused.text)).toContain(
      'Preview pr-1 is pending: only a processed preview can be promoted; wait until it is done',
    );
    // (the flipbook's own page, with the refusal above it)
    expect(h1Of(refused.text)).toBe(h1Of(page));
    expect((await shown('draft', 'pr-1')).status).toBe(200);
  });

  it('keeps workspaces apart: another workspace’s preview is a 404 for every page and action', async () => {
    const other = await app.newWorkspace('globex');
    const theirs = await pipelineOf(app, other.key).preview('theirs', 'pr-2');
    const ours = await pipelineOf(app).preview('ours', 'pr-2');
    const fay = await d().signedIn('fay@example.com');
    await fay.get(`/dashboard/flipbooks/${ours.flipbook_id}`);
    const f = `/dashboard/flipbooks/${theirs.flipbook_id}/previews/pr-2`;
    const mine = `/dashboard/flipbooks/${ours.flipbook_id}/previews`;
    for (const path of [
      `${f}/promote`,
      `${f}/delete`,
      `${mine}/pr-404/delete`,
      `${mine}/PR-2/delete`,
      `${mine}/.x/delete`,
    ]) {
      expect((await fay.get(path)).status, path).toBe(404);
      expect((await fay.post(path, {}, { follow: false })).status, path).toBe(404);
    }
    expect((await pipelineOf(app, other.key).shown('theirs', 'pr-2')).status).toBe(200);
  });

  it('refuses the forms without their CSRF token (403), and changes nothing', async () => {
    const { preview, shown } = pipelineOf(app);
    const made = await preview('guarded', 'pr-3');
    const gus = await d().signedIn('gus@example.com');
    const base = `/dashboard/flipbooks/${made.flipbook_id}/previews/pr-3`;
    await gus.get(`${base}/delete`);
    for (const path of ['/delete', '/promote']) {
      const reply = await gus.post(`${base}${path}`, { _csrf: '' }, { follow: false });
      expect(reply.status, path).toBe(403);
    }
    const foreign = await gus.post(
      `${base}/delete`,
      {},
      { follow: false, origin: 'https://evil.example' },
    );
    expect(foreign.status).toBe(403);
    expect((await shown('guarded', 'pr-3')).status).toBe(200);
  });
});
