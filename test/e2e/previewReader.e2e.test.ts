// A preview's reader in real headless Chromium (issue "Review a PDF change like a code change"):
// the banner, the Changes panel, the compare view side by side on a desktop and a swipe between
// before and after on a phone, reached from the pull request's link (#compare=N); axe clean, and
// screenshots in docs/images/ (docs/ci.md shows them). One daemon; the live version is the first 8 pages of a
// corpus paper, the preview the same with a word laid over page 3 and a page inserted after 5.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { marked } from 'marked';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { previewMarkdown } from '../../packages/cli/src/previewReport.ts';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import { client, expectJson, form, type Json, send, waitActive } from '../support/apiHelpers.ts';
import { ROOT } from '../support/cli.ts';
import { corpus } from '../support/corpus.ts';
import { editsFolder, pagesFrom, withWord } from '../support/editedPdfs.ts';
import { axeOf, DESKTOP, launchChromium, PHONE3, watchedPages } from '../support/readerBrowser.ts';
import { waitFor } from '../support/waitFor.ts';

const PAPER = corpus('vec_tracemonkey.pdf');
const OTHER = corpus('vec_vector.pdf');
const SHOTS = join(ROOT, 'docs', 'images');
/** Roughly GitHub's comment styles, for a screenshot that looks like the comment a team sees. */
const COMMENT_CSS = `body{margin:0;background:#fff;font:14px/1.5 -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;color:#1f2328}
.comment{width:760px;padding:16px 24px;border:1px solid #d1d9e0;border-radius:6px;margin:16px}
h3{font-size:1.25em;margin:0 0 16px}a{color:#0969da;text-decoration:none}
table{border-collapse:collapse;margin:16px 0}th,td{border:1px solid #d1d9e0;padding:6px 13px}
th{font-weight:600;background:#f6f8fa}code{background:#eff1f3;padding:.2em .4em;border-radius:6px;font-size:85%}`;

let fx: ApiFixture;
let browser: Browser;
let dir: string;
let preview: Json;
let liveId: string;

const upload = async (file: string, name: string) => ({
  bytes: new Uint8Array(await readFile(file)),
  name,
  type: 'application/pdf',
});

beforeAll(async () => {
  dir = await editsFolder();
  [fx, browser] = await Promise.all([
    startApi('postgres', ['--workers', '2', '--rate-limit', '0']),
    launchChromium(),
  ]);
  const base = await pagesFrom(join(dir, 'base.pdf'), [PAPER, '1-8']);
  const stamped = await withWord(base, 3, 'REVIEWED', join(dir, 'stamped.pdf'));
  const edited = await pagesFrom(
    join(dir, 'edited.pdf'),
    [stamped, '1-5'],
    [OTHER, '1'],
    [stamped, '6-8'],
  );
  const auth = { authorization: `Bearer ${fx.key}` };
  const live = await send(`${fx.api}/flipbooks/by-slug/paper/versions`, {
    method: 'POST',
    headers: auth,
    body: form({ title: 'Tracing paper' }, await upload(base, 'paper.pdf')),
  });
  expectJson(live, 201);
  liveId = live.body.flipbook_id;
  await waitActive(client(fx.api, fx.key), liveId, live.body.version_id);
  const made = await send(`${fx.api}/flipbooks/by-slug/paper/previews/pr-7`, {
    method: 'POST',
    headers: auth,
    body: form({}, await upload(edited, 'paper.pdf')),
  });
  expectJson(made, 201);
  preview = await waitFor('the preview compared', async () => {
    const shown = await send(`${fx.api}/flipbooks/by-slug/paper/previews/pr-7`, { headers: auth });
    return shown.body.compare ? shown.body : undefined;
  });
}, 180_000);

afterAll(async () => {
  await Promise.all([browser?.close(), fx?.stop()]);
  await rm(dir, { recursive: true, force: true });
});

describe('a preview’s reader', () => {
  const open = watchedPages(() => browser);

  it('compares exactly what changed (one page changed, one inserted)', () => {
    expect(preview.compare.changed.map((c: Json) => [c.before, c.after])).toEqual([[3, 3]]);
    expect(preview.compare.inserted).toEqual([6]);
  });

  it('on a desktop: a banner, the Changes panel, and before and after side by side', async () => {
    const page = await open({ ...DESKTOP, bypassCSP: true });
    const answer = await page.goto(preview.preview_url);
    // never indexed, never stored but by this browser, nothing of it shown to link unfurlers
    expect(answer?.headers()['x-robots-tag']).toMatch(/noindex/);
    expect(answer?.headers()['cache-control']).toBe('no-store');
    expect(await page.locator('meta[property^="og:"]').count()).toBe(0);
    await expect
      .poll(() => page.locator('.preview-banner').textContent())
      .toContain('Preview “pr-7”');

    await page.getByRole('button', { name: 'Changes' }).click();
    const panel = page.locator('#panel-changes');
    await expect
      .poll(() => panel.locator('.changes li').allTextContents())
      .toEqual(['Page 3 changed · areas: 1', 'Page 6 inserted']);
    expect(await panel.locator('.message-line').textContent()).toContain('1 changed, 1 inserted');
    expect(await axeOf(page)).toEqual([]);

    await panel.getByRole('button', { name: 'Page 3 changed · areas: 1' }).click();
    const dialog = page.getByRole('dialog', { name: 'Page 3: before and after' });
    await dialog.waitFor();
    // focus in the dialog, on its close button
    expect(await page.evaluate(`document.activeElement?.getAttribute('aria-label')`)).toBe(
      'Close the comparison',
    );
    const images = dialog.locator('img');
    const widths = () =>
      images.evaluateAll((all) =>
        all.map((i) => (i as unknown as { naturalWidth: number }).naturalWidth),
      );
    await expect.poll(async () => (await widths()).every((w) => w > 0)).toBe(true);
    expect(await widths()).toHaveLength(2);
    // side by side, at one height, each with the changed area outlined
    const [before, after] = await Promise.all(
      ['#compare-before .compare-page', '#compare-after .compare-page'].map((s) =>
        page.locator(s).boundingBox(),
      ),
    );
    expect(before && after && before.x + before.width <= after.x).toBe(true);
    expect(Math.abs((before?.y ?? 0) - (after?.y ?? 1))).toBeLessThan(2);
    expect(await dialog.locator('.compare-area').count()).toBe(2);
    const area = await dialog.locator('#compare-after .compare-area').boundingBox();
    expect(area && after && area.x > after.x && area.x + area.width < after.x + after.width).toBe(
      true,
    );
    expect(await axeOf(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'preview-compare-desktop.png') });

    await page.keyboard.press('Escape');
    expect(await dialog.count()).toBe(0);
    // and the book is at the changed page
    expect(await page.locator('#counter').textContent()).toMatch(/^(3|2–3) \//);
  });

  it('on a phone: the pull request’s link opens the comparison, one side at a time, a tab or a swipe apart', async () => {
    const page = await open({ ...PHONE3, bypassCSP: true });
    await page.goto(`${preview.preview_url}#compare=3`);
    const dialog = page.getByRole('dialog', { name: 'Page 3: before and after' });
    await dialog.waitFor();
    const selected = () => page.locator('.compare-tabs [aria-selected="true"]').textContent();
    expect(await selected()).toBe('Before');
    const inView = async (id: string) => {
      const box = await page.locator(`#${id}`).boundingBox();
      return !!box && box.x >= -1 && box.x + box.width <= 391;
    };
    expect(await inView('compare-before')).toBe(true);
    expect(await inView('compare-after')).toBe(false);
    await page.screenshot({ path: join(SHOTS, 'preview-compare-phone-before.png'), scale: 'css' });

    await page.getByRole('tab', { name: 'After' }).click();
    await expect.poll(selected).toBe('After');
    await expect.poll(() => inView('compare-after')).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'preview-compare-phone-after.png'), scale: 'css' });
    expect(await axeOf(page)).toEqual([]);

    await page.getByRole('button', { name: 'Close the comparison' }).click();
    await page.screenshot({ path: join(SHOTS, 'preview-reader-phone.png'), scale: 'css' });
  });

  it('renders the pull request’s comment: the summary, the link, the changed page’s thumbnails linking to its comparison', async () => {
    const page = await open(DESKTOP);
    const markdown = previewMarkdown(preview, { slug: 'paper' });
    // as GitHub shows it: Markdown made HTML (its tables, its inline <img>), in a column of its width
    const body = await marked.parse(markdown);
    await page.setContent(
      `<!doctype html><meta charset="utf-8"><style>${COMMENT_CSS}</style><main class="comment">${body}</main>`,
    );
    const images = page.locator('table img');
    expect(await images.count()).toBe(2);
    await expect
      .poll(() =>
        images.evaluateAll((all) =>
          all.every((i) => (i as unknown as { naturalWidth: number }).naturalWidth > 0),
        ),
      )
      .toBe(true);
    expect(await page.locator('h3').textContent()).toBe(
      'Flipbook preview of paper: 1 page changed, 1 inserted',
    );
    const links = await page
      .locator('table a')
      .evaluateAll((all) => all.map((a) => (a as unknown as { href: string }).href));
    expect(new Set(links)).toEqual(new Set([`${preview.preview_url}#compare=3`]));
    await page.locator('main').screenshot({ path: join(SHOTS, 'preview-comment.png') });
  });

  it('leaves the flipbook’s own reader on the live version; a deleted preview’s address is a 404', async () => {
    const page = await open(DESKTOP);
    await page.goto(`${new URL(fx.api).origin}/f/${liveId}`);
    expect(await page.locator('.preview-banner').count()).toBe(0);
    expect(await page.locator('#counter').textContent()).toBe('1 / 8');
  });
});
