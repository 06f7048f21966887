// Upload and one flipbook in the dashboard, in Chromium on a daemon that processes (--workers 1):
// an upload with its upload and processing progress to the reader link, the script's refusals
// in words next to the file, a new version's row following processing on its own, several PDFs
// at once, a failed flipbook as it looks, a flipbook's previews, axe on desktop and phone, and
// the screenshots of docs/dashboard.md. The forms' answers (the upload form without JavaScript, activate, delete,
// details, archive, downloads, the Activity trail, isolation, CSRF) are
// test/spec/dashboardFlipbooks.spec.test.ts's.
import { mkdirSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type Client,
  client,
  createFlipbook,
  type FileSpec,
  form,
  pdf,
  SMALL_PDF,
  send,
  waitDone,
} from '../support/apiHelpers.ts';
import { CORPUS } from '../support/corpus.ts';
import { axeViolations, DESKTOP, PHONE, useDashboard } from '../support/dashboard.ts';
import { editsFolder, pagesFrom, withWord } from '../support/editedPdfs.ts';
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
    waitDone(c, flipbookId, versionId, SLOW);
  const row = (page: Page, n: number) =>
    page.locator('table.versions tbody tr', {
      has: page.getByRole('rowheader', { name: new RegExp(`^Version ${n}\\b`) }),
    });

  it(
    'uploads a PDF with real progress, follows processing to the reader link; the grid shows it',
    async () => {
      const page = await d.signedIn('ann@example.com');
      await page.getByRole('link', { name: 'Upload a document' }).click();
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
    'refuses a file that is not a PDF, or over the plan’s limits, in words next to the file, from the script',
    async () => {
      const notPdf = {
        name: 'notes.pdf',
        mimeType: 'application/pdf',
        buffer: Buffer.from('notes'),
      };
      const page = await d.signedIn('ben@example.com');
      await page.goto(`${d.url}/dashboard/upload`);
      await page.getByLabel('PDF').setInputFiles(notPdf);
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      const error = page.locator('#file-error');
      await error.filter({ hasText: /./ }).waitFor();
      expect(await error.textContent()).toBe(
        'The file is not a kind this service takes (a PDF; a Word, PowerPoint or Excel document (.docx .doc .pptx .ppt .xlsx .xls), an OpenDocument one (.odt .odp .ods) or RTF; or an image (JPEG, PNG, WebP, TIFF), or a ZIP of images)',
      );
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
    },
    SLOW,
  );

  it(
    'uploads a second version without activating it; its row follows processing to its buttons',
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
      // The page comes back at the versions, and says the notice there: on screen, under the
      // section's heading (at the page's top it was 341 px above the screen).
      const notice = page.locator('#versions').getByRole('status').filter({ hasText: 'Uploaded' });
      const shown = (await notice.boundingBox())?.y ?? -1;
      expect(shown).toBeGreaterThanOrEqual(0);
      expect(shown).toBeLessThan(200);
      expect(await page.getByRole('status').filter({ hasText: 'Uploaded' }).count()).toBe(1);
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
    'shows a flipbook’s previews (a page removed, a word changed) on a desktop and a phone, axe-clean; screenshots',
    async () => {
      const post = async (path: string, file: FileSpec) => {
        const reply = await send(`${d.fx.api}/flipbooks/by-slug/${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${d.fx.key}` },
          body: form({}, file),
        });
        expect(reply.status, reply.text).toBe(201);
        return reply.body as { flipbook_id: string; version_id: string };
      };
      const live = await post('price-list/versions', pdf(SMALL_PDF));
      await waitFor(
        'the price list live',
        async () =>
          (await api.flipbook(live.flipbook_id)).body.versions.some(
            (v: { id: string; is_active: boolean }) => v.id === live.version_id && v.is_active,
          ) || undefined,
        SLOW,
        200,
      );
      // Two pull requests' previews of it, as a pipeline publishes them.
      const folder = await editsFolder();
      const edited = async (name: string, make: (out: string) => Promise<string>) => ({
        bytes: await readFile(await make(join(folder, name))),
        name,
        type: 'application/pdf',
      });
      await post(
        'price-list/previews/pr-12',
        await edited('shorter.pdf', (out) => pagesFrom(out, [SMALL, '1-2'])),
      );
      await post(
        'price-list/previews/pr-14',
        await edited('reworded.pdf', (out) => withWord(SMALL, 1, 'Discounted', out)),
      );
      await waitFor(
        'both previews compared',
        async () => {
          const { previews } = (await api.get('/flipbooks/by-slug/price-list/previews')).body;
          return previews.length === 2 &&
            previews.every((p: { compare: unknown }) => p.compare !== null)
            ? true
            : undefined;
        },
        SLOW,
        200,
      );
      await rm(folder, { recursive: true, force: true });

      for (const [name, options] of [
        ['desktop', DESKTOP],
        ['phone', PHONE],
      ] as const) {
        const page = await d.signedIn(`previews-${name}@example.com`, {
          context: { ...options, bypassCSP: true },
        });
        await page.goto(`${d.url}/dashboard/flipbooks/${live.flipbook_id}#previews`);
        const rows = page.locator('table.previews tbody tr');
        expect(await rows.count()).toBe(2);
        expect(await rows.nth(0).getByRole('rowheader').textContent()).toBe('pr-14');
        expect(await rows.nth(0).textContent()).toContain('1 page changed');
        expect(await rows.nth(1).textContent()).toContain('1 page removed');
        expect(
          await page
            .getByRole('link', { name: 'Open pr-12 (in a new tab)' })
            .getAttribute('target'),
        ).toBe('_blank');
        expect(await axeViolations(page), `${name} previews`).toEqual([]);
        expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
          options.viewport?.width ?? 0,
        );
        await page
          .locator('#previews')
          .screenshot({ path: join(IMAGES, `dashboard-previews-${name}.png`) });
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
