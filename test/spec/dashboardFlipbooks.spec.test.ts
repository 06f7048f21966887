// Upload and one flipbook in the dashboard, end to end in Chromium on a daemon that processes
// (--workers 1): an upload with its upload and processing progress to the reader link, refusals
// in words (with and without JavaScript), versions (upload without activating, activate, delete
// after a confirmation), details, archive, downloads, the Activity trail naming the person,
// isolation between workspaces, CSRF refusals, axe on desktop and phone, and the screenshots
// of docs/dashboard.md.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type Client,
  client,
  createFlipbook,
  expectJson,
  pdf,
  SMALL_PDF,
} from '../support/apiHelpers.ts';
import { CORPUS } from '../support/corpus.ts';
import { axeViolations, DESKTOP, PHONE, useDashboard } from '../support/dashboard.ts';
import { waitFor } from '../support/waitFor.ts';

const IMAGES = join(import.meta.dirname, '..', '..', 'docs', 'images');
const TRACEMONKEY = join(CORPUS, 'vec_tracemonkey.pdf');
const SMALL = join(CORPUS, SMALL_PDF);
/** Tests that wait for real processing: two cores, shared with other test runs. */
const SLOW = 240_000;

describe('dashboard: upload and one flipbook (embedded store, one worker)', () => {
  const d = useDashboard('embedded', ['--workers', '1']);
  let api: Client;

  beforeAll(() => {
    mkdirSync(IMAGES, { recursive: true });
    api = client(d.fx.api, d.fx.key);
  });

  /** A flipbook made through the API (its key is the actor), processed. */
  const processedFlipbook = async (title: string, c = api, file = SMALL_PDF) => {
    const made = await createFlipbook(c, { title }, pdf(file));
    await processed(made.flipbookId, made.versionId, c);
    return made;
  };
  const processed = (flipbookId: string, versionId: string, c = api) =>
    waitFor(
      `version ${versionId} processed`,
      async () => {
        const reply = await c.status(flipbookId, versionId);
        expect(reply.body.status).not.toBe('error');
        return reply.body.status === 'done' ? reply.body : undefined;
      },
      SLOW,
      200,
    );
  const row = (page: Page, n: number) =>
    page.locator('table.versions tbody tr', {
      has: page.getByRole('rowheader', { name: new RegExp(`^Version ${n}\\b`) }),
    });
  const activity = (page: Page) => page.locator('#activity ol > li');
  const status = async (path: string) => (await fetch(`${d.url}${path}`)).status;

  it(
    'uploads a PDF with real progress, follows processing to the reader link; the grid shows it',
    async () => {
      const page = await d.signedIn('ann@example.com');
      await page.getByRole('link', { name: 'Upload a PDF' }).click();
      await page.waitForURL(`${d.url}/dashboard/upload`);
      await page.getByLabel('Title').fill('TraceMonkey paper');
      await page.getByLabel('PDF').setInputFiles(TRACEMONKEY);
      // Every state the progress bar goes through, as the page shows it.
      await page.evaluate(`(() => {
      window.seen = [];
      const box = document.querySelector('[data-progress]');
      const note = () => {
        const bar = box.querySelector('progress');
        window.seen.push(box.querySelector('[data-progress-label]').textContent + ' ' +
          (bar.hasAttribute('value') ? bar.value : '-') + '/' + bar.max);
      };
      new MutationObserver(note).observe(box, { subtree: true, childList: true, characterData: true, attributes: true });
    })()`);
      // A slow link (DevTools' throttling, about 1 MB in 4 s) so the upload is seen midway.
      const cdp = await page.context().newCDPSession(page);
      const link = (bytesPerSecond: number) =>
        cdp.send('Network.emulateNetworkConditions', {
          offline: false,
          latency: 0,
          downloadThroughput: -1,
          uploadThroughput: bytesPerSecond,
        });
      await cdp.send('Network.enable');
      await link(256 * 1024);
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      await page.locator('[data-progress-text]', { hasText: /^[1-9]\d% of / }).waitFor();
      // a real <progress>, labelled, midway
      const bar = page.getByRole('progressbar', { name: 'Uploading' });
      expect(Number(await bar.getAttribute('value'))).toBeGreaterThan(0);
      expect(Number(await bar.getAttribute('value'))).toBeLessThan(100);
      await page.screenshot({ path: join(IMAGES, 'dashboard-upload-desktop.png') });
      await link(-1);
      const ready = page.getByRole('link', { name: 'Open the reader' });

      await ready.waitFor({ timeout: SLOW });
      const readerUrl = (await ready.getAttribute('href')) ?? '';
      expect(readerUrl).toMatch(new RegExp(`^${d.url}/f/[0-9a-f-]{36}$`));
      const seen = (await page.evaluate('window.seen')) as string[];
      expect(seen.some((s) => /^Uploading [1-9]\d?\/100$/.test(s))).toBe(true);
      expect(seen).toContain('Uploading 100/100');
      expect(seen.some((s) => s.startsWith('Processing'))).toBe(true);
      expect(seen.at(-1)).toBe('Processed 14/14');
      expect((await fetch(readerUrl)).status).toBe(200);

      await page.getByRole('link', { name: 'Manage this flipbook' }).click();
      await page.waitForURL(/\/dashboard\/flipbooks\/[0-9a-f-]{36}$/);
      expect(await page.locator('h1').textContent()).toBe('TraceMonkey paper');
      expect(await row(page, 1).textContent()).toContain('Active');

      await page.getByRole('link', { name: 'Flipbooks', exact: true }).click();
      const tile = page.locator('.tile', { hasText: 'TraceMonkey paper' });
      expect(await tile.textContent()).toContain('14 pages');
      const cover = tile.locator('img');
      await waitFor('the cover', () =>
        cover.evaluate((img: { complete: boolean; naturalWidth: number }) =>
          img.complete && img.naturalWidth > 0 ? true : undefined,
        ),
      );
    },
    SLOW,
  );

  it(
    'refuses a file that is not a PDF, or over the plan’s limits, in words next to the file (with and without JavaScript)',
    async () => {
      const notPdf = {
        name: 'notes.pdf',
        mimeType: 'application/pdf',
        buffer: Buffer.from('notes'),
      };
      const before = (await api.list()).body.flipbooks.length;

      const page = await d.signedIn('ben@example.com');
      await page.goto(`${d.url}/dashboard/upload`);
      await page.getByLabel('PDF').setInputFiles(notPdf);
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      const error = page.locator('#file-error');
      await error.filter({ hasText: /./ }).waitFor();
      expect(await error.textContent()).toBe('File is not a PDF: it has no %PDF- header');
      expect(await page.getByLabel('PDF').getAttribute('aria-invalid')).toBe('true');

      // Over the plan's limits: a free workspace takes at most 200 pages.
      await d.fx.newWorkspace('freebies', 'free');
      const free = await d.signedIn('flo@example.com', { workspace: 'freebies' });
      await free.goto(`${d.url}/dashboard/upload`);
      expect(await free.locator('#file-hint').textContent()).toContain(
        'Up to 50 MB and 200 pages on the free plan.',
      );
      await free.getByLabel('PDF').setInputFiles(join(CORPUS, 'text_freeculture.pdf'));
      await free.getByRole('button', { name: 'Upload', exact: true }).click();
      await free.locator('#file-error').filter({ hasText: /./ }).waitFor();
      expect(await free.locator('#file-error').textContent()).toBe(
        'Too many pages for the free plan: the limit is 200 pages per document, this one has 352',
      );

      // No script: the plain form posts, and the page answers with the same words, title kept.
      const plain = await d.signedIn('cy@example.com', {
        context: { ...DESKTOP, javaScriptEnabled: false },
      });
      await plain.goto(`${d.url}/dashboard/upload`);
      await plain.getByLabel('Title').fill('My notes');
      await plain.getByLabel('PDF').setInputFiles(notPdf);
      const [refused] = await Promise.all([
        plain.waitForResponse((r) => r.url() === `${d.url}/dashboard/upload`),
        plain.getByRole('button', { name: 'Upload', exact: true }).click(),
      ]);
      expect(refused.status()).toBe(422);
      expect(await plain.locator('#file-error').textContent()).toBe(
        'File is not a PDF: it has no %PDF- header',
      );
      expect(await plain.getByLabel('Title').inputValue()).toBe('My notes');
      expect((await api.list()).body.flipbooks.length).toBe(before);

      // ... and a real PDF goes through, to its own page.
      await plain.getByLabel('PDF').setInputFiles(SMALL);
      await plain.getByRole('button', { name: 'Upload', exact: true }).click();
      await plain.waitForURL(/\/dashboard\/flipbooks\/[0-9a-f-]{36}\?notice=uploaded$/);
      expect(await plain.getByRole('status').first().textContent()).toContain('Uploaded');
      expect(await row(plain, 1).count()).toBe(1);
    },
    SLOW,
  );

  it(
    'uploads a second version without activating it, activates it, deletes the first after a confirmation',
    async () => {
      const { flipbookId } = await processedFlipbook('Versions');
      const page = await d.signedIn('dee@example.com');
      await page.goto(`${d.url}/dashboard/flipbooks/${flipbookId}`);
      expect(await row(page, 1).textContent()).toContain('Active');
      // The active version can be neither activated nor deleted.
      expect(await row(page, 1).getByRole('button').count()).toBe(0);

      await page.getByLabel('PDF').setInputFiles(SMALL);
      await page.getByLabel('Keep the current version active').check();
      await page.getByRole('button', { name: 'Upload new version' }).click();
      await page.waitForURL(/\?notice=uploaded#versions$/);
      // The row follows processing on its own, then gets its buttons.
      const activate = row(page, 2).getByRole('button', { name: 'Activate' });
      await activate.waitFor({ timeout: SLOW });
      expect(await row(page, 2).textContent()).toContain('Processed');
      expect(await row(page, 2).textContent()).not.toContain('Active');
      expect(await row(page, 1).textContent()).toContain('Active');
      // newest first
      expect(await page.locator('table.versions tbody th').allTextContents()).toEqual([
        'Version 2',
        'Version 1 Active',
      ]);

      await activate.click();
      await page.waitForURL(/\?notice=activated#versions$/);
      expect(await row(page, 2).textContent()).toContain('Active');
      const shown = await api.flipbook(flipbookId);
      expect(shown.body.versions.find((v: { is_active: boolean }) => v.is_active).version).toBe(2);

      await row(page, 1).getByRole('button', { name: 'Delete' }).click();
      await page.waitForURL(/\/versions\/[0-9a-f-]{36}\/delete\??$/);
      expect(await page.locator('h1').textContent()).toBe('Delete version 1?');
      // Cancel changes nothing...
      await page.getByRole('link', { name: 'Cancel' }).click();
      expect(await row(page, 1).count()).toBe(1);
      // ...the confirmation deletes it.
      await row(page, 1).getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('button', { name: 'Delete version 1' }).click();
      await page.waitForURL(/\?notice=version-deleted#versions$/);
      expect(await row(page, 1).count()).toBe(0);
      expect((await api.flipbook(flipbookId)).body.versions.length).toBe(1);

      // The Activity says who did it, newest first.
      const lines = await activity(page).locator('.what').allTextContents();
      expect(lines[0]).toBe('dee@example.com deleted version 1');
      expect(lines[1]).toBe('dee@example.com activated version 2');
      expect(lines).toContain(
        'dee@example.com uploaded version 2 (text_multicolumn.pdf, 77 KB), to stay inactive',
      );
      expect(lines.at(-1)).toMatch(/^API key \S+ created the flipbook “Versions”$/);
      expect(await activity(page).first().locator('.when').textContent()).toMatch(
        / UTC · from \S+ · (Headless )?Chrome on Linux$/,
      );
    },
    SLOW,
  );

  it(
    'edits the title and slug, archives and unarchives, switches downloads; the trail names the person',
    async () => {
      const { flipbookId, versionId } = await processedFlipbook('Before');
      await createFlipbook(api, { title: 'Taken', slug: 'taken' });
      const page = await d.signedIn('eve@example.com');
      await page.goto(`${d.url}/dashboard/flipbooks/${flipbookId}`);

      // A slug in use is refused in words, what was typed is kept.
      await page.getByLabel('Title').fill('After');
      await page.getByLabel('Slug').fill('taken');
      await page.getByRole('button', { name: 'Save changes' }).click();
      expect(await page.locator('#details [role=alert]').textContent()).toBe(
        'Slug "taken" is already used by another flipbook in this workspace',
      );
      expect(await page.getByLabel('Title').inputValue()).toBe('After');
      await page.getByLabel('Slug').fill('after-all');
      await page.getByLabel('Description').fill('Edited in the dashboard.');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.waitForURL(/\?notice=saved#details$/);
      expect(await page.locator('h1').textContent()).toBe('After');
      const edited = (await api.flipbook(flipbookId)).body;
      expect([edited.title, edited.slug, edited.description]).toEqual([
        'After',
        'after-all',
        'Edited in the dashboard.',
      ]);

      const reader = `/f/${flipbookId}`;
      expect(await status(reader)).toBe(200);
      await page.getByRole('button', { name: 'Archive', exact: true }).click();
      await page.waitForURL(/\?notice=archived#availability$/);
      expect(await page.locator('.head-meta .badge').textContent()).toBe('Archived');
      expect(await status(reader)).toBe(410);
      await page.getByRole('button', { name: 'Unarchive' }).click();
      await page.waitForURL(/\?notice=unarchived#availability$/);
      expect(await status(reader)).toBe(200);

      const original = `/files/originals/${versionId}`;
      expect(await status(original)).toBe(200);
      await page.getByRole('button', { name: 'Turn downloads off' }).click();
      await page.waitForURL(/\?notice=downloads-off#availability$/);
      expect(await status(original)).toBe(404);
      await page.getByRole('button', { name: 'Allow downloads' }).click();
      await page.waitForURL(/\?notice=downloads-on#availability$/);
      expect(await status(original)).toBe(200);

      expect((await activity(page).locator('.what').allTextContents()).slice(0, 5)).toEqual([
        'eve@example.com allowed downloads',
        'eve@example.com turned downloads off',
        'eve@example.com unarchived the flipbook',
        'eve@example.com archived the flipbook',
        'eve@example.com changed the title to “After”, the slug to “after-all”, the description',
      ]);
      // The API's trail holds the same person, as the audit page defines the actor.
      const trail = (await api.get(`/flipbooks/${flipbookId}/events?per_page=100`)).body.events;
      const last = trail.at(-1);
      expect(last.type).toBe('FlipbookDownloadChanged');
      expect(last.metadata.actor).toMatchObject({ type: 'user', email: 'eve@example.com' });
      expect(last.metadata.client_ip).toBe('127.0.0.1');
    },
    SLOW,
  );

  it(
    'keeps workspaces apart: another workspace’s flipbook or version is a 404 for every page and action',
    async () => {
      const other = await d.fx.newWorkspace('globex');
      const theirs = await createFlipbook(client(d.fx.api, other.key), { title: 'Theirs' });
      const ours = await processedFlipbook('Ours');
      const page = await d.signedIn('fay@example.com');
      await page.goto(`${d.url}/dashboard/flipbooks/${ours.flipbookId}`);
      const csrf = await page.locator('input[name=_csrf]').first().inputValue();
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
        expect((await page.request.get(`${d.url}${path}`)).status(), path).toBe(404);
      }
      const form = {
        _csrf: csrf,
        title: 'Mine now',
        slug: 'mine',
        description: '',
        allow: 'false',
      };
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
        const reply = await page.request.post(`${d.url}${path}`, {
          form,
          headers: { origin: d.url },
          maxRedirects: 0,
        });
        expect(reply.status(), path).toBe(404);
      }
      const upload = await page.request.post(`${d.url}${f}/versions`, {
        multipart: {
          _csrf: csrf,
          file: { name: 'a.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4') },
        },
        headers: { origin: d.url },
        maxRedirects: 0,
      });
      expect(upload.status()).toBe(404);
      const still = await client(d.fx.api, other.key).flipbook(theirs.flipbookId);
      expectJson(still, 200);
      expect(still.body.title).toBe('Theirs');
      expect(still.body.versions.length).toBe(1);
    },
    SLOW,
  );

  it(
    'refuses forms without their CSRF token (403), uploads included, and changes nothing',
    async () => {
      const { flipbookId } = await processedFlipbook('Guarded');
      const page = await d.signedIn('gus@example.com');
      await page.goto(`${d.url}/dashboard/flipbooks/${flipbookId}`);
      const base = `${d.url}/dashboard/flipbooks/${flipbookId}`;
      for (const path of ['/archive', '/download', '/delete', '']) {
        const reply = await page.request.post(`${base}${path}`, {
          form: { title: 'Hijacked', slug: 'hijacked', allow: 'false' },
          headers: { origin: d.url },
          maxRedirects: 0,
        });
        expect(reply.status(), path).toBe(403);
      }
      const before = (await api.list()).body.flipbooks.length;
      const file = {
        name: 'x.pdf',
        mimeType: 'application/pdf',
        buffer: Buffer.from(pdf(SMALL_PDF).bytes),
      };
      for (const [path, headers] of [
        ['/dashboard/upload', { origin: d.url }],
        ['/dashboard/upload', { origin: d.url, 'x-csrf-token': 'wrong' }],
        [`/dashboard/flipbooks/${flipbookId}/versions`, { origin: d.url }],
      ] as const) {
        const reply = await page.request.post(`${d.url}${path}`, {
          multipart: { title: 'Sneaky', file },
          headers,
          maxRedirects: 0,
        });
        expect(reply.status(), path).toBe(403);
      }
      // From another site, even with the right token.
      const csrf = await page.locator('input[name=_csrf]').first().inputValue();
      const foreign = await page.request.post(`${d.url}/dashboard/upload`, {
        multipart: { _csrf: csrf, file },
        headers: { origin: 'https://evil.example' },
        maxRedirects: 0,
      });
      expect(foreign.status()).toBe(403);
      expect((await api.list()).body.flipbooks.length).toBe(before);
      const shown = (await api.flipbook(flipbookId)).body;
      expect([shown.title, shown.status, shown.versions.length]).toEqual([
        'Guarded',
        'published',
        1,
      ]);
    },
    SLOW,
  );

  it(
    'is axe-clean on desktop and phone, light and dark, and fits a phone; screenshots',
    async () => {
      const { flipbookId } = await processedFlipbook('Annual report 2026');
      // A few more, for a grid worth a picture.
      await Promise.all(
        [
          ['Cardinal field notes', 'odd_cardinal.pdf'],
          ['Photo essay', 'img_photos-issue5481.pdf'],
          ['Quarterly charts', 'vec_charts-issue1905.pdf'],
          ['Catscratch', 'vec_vector.pdf'],
        ].map(([title = '', file]) => processedFlipbook(title, api, file)),
      );
      const version = await api.addVersion(flipbookId, pdf(SMALL_PDF), { activate: 'false' });
      await processed(flipbookId, version.body.version_id);

      for (const [name, options] of [
        ['desktop', DESKTOP],
        ['phone', PHONE],
      ] as const) {
        for (const colorScheme of ['light', 'dark'] as const) {
          const page = await d.signedIn(`${name}-${colorScheme}@example.com`, {
            context: { ...options, colorScheme, bypassCSP: true },
          });
          await page.getByRole('link', { name: 'Annual report 2026' }).click();
          await page.waitForURL(/\/dashboard\/flipbooks\//);
          expect(await axeViolations(page), `${name} ${colorScheme} flipbook`).toEqual([]);
          expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
            options.viewport?.width ?? 0,
          );
          if (colorScheme === 'light') {
            await page.screenshot({
              path: join(IMAGES, `dashboard-flipbook-${name}.png`),
              fullPage: true,
            });
          }
          await page.goto(`${d.url}/dashboard/upload`);
          expect(await axeViolations(page), `${name} ${colorScheme} upload`).toEqual([]);
          expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
            options.viewport?.width ?? 0,
          );
          await page.goto(`${d.url}/dashboard/flipbooks/${flipbookId}/delete`);
          expect(await axeViolations(page), `${name} ${colorScheme} confirm`).toEqual([]);
          if (name === 'desktop' && colorScheme === 'light') {
            await page.goto(`${d.url}/dashboard`);
            await waitFor('the covers', () =>
              page.evaluate(
                `[...document.images].every((i) => i.complete && i.naturalWidth > 0) || undefined`,
              ),
            );
            await page.screenshot({ path: join(IMAGES, 'dashboard-flipbooks-desktop.png') });
          }
        }
      }
    },
    SLOW,
  );

  it(
    'a flipbook whose only version failed is shown as failed, with nothing to share; its reader is a 404',
    async () => {
      const made = await createFlipbook(api, { title: 'Locked report' }, pdf('enc_issue3371.pdf'));
      await waitFor(
        'processing to fail',
        async () =>
          (await api.status(made.flipbookId, made.versionId)).body.status === 'error'
            ? true
            : undefined,
        SLOW,
        200,
      );
      const reader = await fetch(`${d.url}/f/${made.flipbookId}`);
      expect(reader.status).toBe(404);
      expect((await fetch(`${d.url}/f/${made.flipbookId}/text`)).status).toBe(404);

      const page = await d.signedIn('fay@example.com', { context: PHONE });
      const tile = page.locator('.tile').filter({ hasText: 'Locked report' });
      expect(await tile.locator('.badge').textContent()).toBe('Failed');
      expect(await tile.textContent()).toContain('No version could be processed');
      await tile.getByRole('link').click();
      await page.waitForURL(/\/dashboard\/flipbooks\//);
      expect(await page.locator('.head-meta .badge').textContent()).toBe('Failed');
      expect(await page.getByRole('link', { name: 'Open the reader' }).count()).toBe(0);
      expect(await page.locator('#reader-link').count()).toBe(0);
      expect(await page.locator('#embed-code').count()).toBe(0);
      expect(await page.getByRole('heading', { name: 'Not published' }).count()).toBe(1);
      await page.screenshot({
        path: join(IMAGES, 'dashboard-flipbook-failed-phone.png'),
        fullPage: true,
      });

      // A version that works brings it to life, at the same link.
      const fixed = await api.addVersion(made.flipbookId, pdf(SMALL_PDF));
      await processed(made.flipbookId, fixed.body.version_id);
      expect((await fetch(`${d.url}/f/${made.flipbookId}`)).status).toBe(200);
      await page.reload();
      expect(await page.locator('.head-meta .badge').textContent()).toBe('Published');
      expect(await page.locator('#reader-link').count()).toBe(1);
    },
    SLOW,
  );

  it(
    'uploads several PDFs at once, a flipbook each, with a row of progress and outcome each',
    async () => {
      const page = await d.signedIn('multi@example.com', { context: { ...PHONE } });
      await page.goto(`${d.url}/dashboard/upload`);
      const files = [
        join(CORPUS, 'odd_tiny-issue11878.pdf'),
        join(CORPUS, 'enc_issue3371.pdf'), // password-protected: processing fails
        join(CORPUS, 'vec_vector.pdf'),
      ];
      await page.getByLabel('PDF').setInputFiles(files);
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      const rows = page.getByRole('list', { name: 'Uploads' }).locator('li');
      await expect.poll(() => rows.count()).toBe(3);
      await page
        .getByRole('status')
        .filter({ hasText: /of 3 PDFs ready/ })
        .waitFor({ timeout: SLOW });
      expect(
        await page
          .getByRole('status')
          .filter({ hasText: /of 3 PDFs ready/ })
          .textContent(),
      ).toBe('2 of 3 PDFs ready, 1 not.');
      expect(await rows.nth(0).textContent()).toContain('Ready');
      expect(await rows.nth(1).textContent()).toContain(
        'Could not be processed: The PDF is password-protected',
      );
      expect(await rows.nth(2).textContent()).toContain('Ready');
      const reader = await rows
        .nth(2)
        .getByRole('link', { name: 'Open the reader' })
        .getAttribute('href');
      expect((await fetch(reader ?? '')).status).toBe(200);
      await page.screenshot({
        path: join(IMAGES, 'dashboard-upload-several-phone.png'),
        fullPage: true,
      });
      // three flipbooks, titled after their files
      const listed = (await api.list('per_page=100')).body.flipbooks.map(
        (f: { title: string }) => f.title,
      );
      for (const name of ['odd_tiny-issue11878.pdf', 'enc_issue3371.pdf', 'vec_vector.pdf']) {
        expect(listed).toContain(name);
      }
    },
    SLOW,
  );
});
