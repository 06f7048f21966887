// A workspace's reader branding (issue 31, item 8), end to end in headless Chromium: an owner
// sets an accent, a background and a logo on the dashboard's workspace page; the reader of the
// workspace's flipbooks shows them in both themes, on a desktop and a 3× phone, axe-clean; the
// accent is made readable where it would not be; refusals in words; members may only look;
// the event records who; removing it all brings the reader's own look back.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { contrast, readableOn } from '../../src/reader/brandStyle.ts';
import { client, createFlipbook, waitForOutcome } from '../support/apiHelpers.ts';
import { ROOT } from '../support/cli.ts';
import { useDashboard } from '../support/dashboard.ts';
import { pdfBytes } from '../support/pdfWriter.ts';
import { axeOf, DESKTOP, PHONE3 } from '../support/readerBrowser.ts';
import { readerPdf } from '../support/readerPdf.ts';

const IMAGES = join(ROOT, 'docs', 'images');
const ACCENT = '#ffd400'; // a pale yellow: too light to read as text on the light theme
const BACKGROUND = '#0b3d2e';

describe('reader branding', () => {
  const d = useDashboard('embedded', ['--workers', '1']);
  let readerUrl = '';
  let logo: Buffer;

  beforeAll(async () => {
    const api = client(d.fx.api, d.fx.key);
    const book = await createFlipbook(
      api,
      {},
      {
        bytes: new Uint8Array(pdfBytes(readerPdf())),
        name: 'almanac.pdf',
        type: 'application/pdf',
      },
    );
    expect(await waitForOutcome(api, book.flipbookId, book.versionId)).toMatchObject({
      status: 'done',
    });
    readerUrl = (await api.flipbook(book.flipbookId)).body.url;
    logo = await sharp({ create: { width: 1200, height: 300, channels: 4, background: '#d04a02' } })
      .composite([
        {
          input: Buffer.from(
            '<svg width="1200" height="300"><circle cx="150" cy="150" r="110" fill="#fff"/></svg>',
          ),
        },
      ])
      .png()
      .toBuffer();
  });

  const openReader = async (options = DESKTOP, colorScheme: 'light' | 'dark' = 'light') => {
    const page = await d.open({
      ...options,
      colorScheme,
      reducedMotion: 'reduce',
      bypassCSP: true,
    });
    await page.goto(`${readerUrl}#page=2`);
    await page.locator('#stage figure[data-n]').first().waitFor();
    return page;
  };
  const style = (page: Page, expression: string) => page.evaluate(expression) as Promise<string>;
  const rgb = (hex: string) =>
    `rgb(${[1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;

  /** The branding form posted without a browser, as the signed-in page would (its cookie, CSRF). */
  const postBranding = async (page: Page, fields: Record<string, string>, file?: Blob) => {
    await page.goto(`${d.url}/dashboard/workspace`);
    const csrf = (await page.locator('input[name="_csrf"]').first().getAttribute('value')) ?? '';
    const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const form = new FormData();
    form.set('_csrf', csrf);
    for (const [name, value] of Object.entries(fields)) form.set(name, value);
    if (file) form.set('logo', file, 'logo.bin');
    const res = await fetch(`${d.url}/dashboard/workspace/branding`, {
      method: 'POST',
      body: form,
      headers: { cookie, origin: d.url },
      redirect: 'manual',
    });
    return { status: res.status, text: await res.text() };
  };

  it('an owner sets an accent, a background and a logo: the reader shows them, readable in both themes', async () => {
    const owner = await d.signedIn('owner@example.com', {
      context: { ...DESKTOP, bypassCSP: true },
    });
    await owner.getByRole('link', { name: 'acme' }).click();
    await owner.waitForURL(/\/dashboard\/workspace$/);
    await owner.locator('input[name="accent_choice"][value="brand"]').check();
    await owner.locator('input[name="accent"]').fill(ACCENT);
    await owner.locator('input[name="background_choice"][value="brand"]').check();
    await owner.locator('input[name="background"]').fill(BACKGROUND);
    await owner
      .locator('#logo')
      .setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: logo });
    await owner.getByRole('button', { name: 'Save' }).click();
    await owner.waitForURL(/saved=1/);
    await owner.getByText('The branding is saved').waitFor();
    const shown = owner.locator('img.brand-logo');
    await expect
      .poll(() => shown.evaluate((i) => (i as unknown as { naturalWidth: number }).naturalWidth))
      .toBe(480);
    expect(await axeOf(owner, ['serious', 'critical'])).toEqual([]);

    for (const screen of [DESKTOP, PHONE3]) {
      for (const scheme of ['light', 'dark'] as const) {
        const page = await openReader(screen, scheme);
        const accent = await style(
          page,
          `getComputedStyle(document.documentElement).getPropertyValue('--accent').trim()`,
        );
        if (scheme === 'light') {
          expect(accent).toBe(readableOn(ACCENT, '#e1e5eb', '#000000'));
          expect(contrast(accent, '#e1e5eb')).toBeGreaterThanOrEqual(4.5);
        } else {
          expect(accent).toBe(ACCENT);
        }
        expect(await style(page, `getComputedStyle(document.body).backgroundColor`)).toBe(
          rgb(BACKGROUND),
        );
        const img = page.locator('.bar img.logo');
        await expect
          .poll(() => img.evaluate((i) => (i as unknown as { naturalWidth: number }).naturalWidth))
          .toBe(480);
        expect(await img.getAttribute('alt')).toBe('');
        // the logo sits before the title, in the bar
        const [logoBox, titleBox] = [
          await img.boundingBox(),
          await page.locator('h1.title').boundingBox(),
        ];
        expect((logoBox?.x ?? 0) + (logoBox?.width ?? 0)).toBeLessThanOrEqual(titleBox?.x ?? 0);
        expect(await axeOf(page), `${scheme}`).toEqual([]);
        await page.locator('.tools [data-panel="contents"]').click();
        expect(await axeOf(page), `${scheme}, contents`).toEqual([]);
        // Two of these for docs/images: the desktop in light, the phone in dark.
        const shot =
          screen === DESKTOP && scheme === 'light'
            ? 'reader-branded.png'
            : screen === PHONE3 && scheme === 'dark'
              ? 'reader-branded-phone.png'
              : null;
        if (shot) {
          await page.keyboard.press('Escape');
          await page.evaluate(`document.activeElement.blur()`);
          await page.evaluate(
            `Promise.all([...document.images].map((i) => i.decode().catch(() => {})))`,
          );
          await page.screenshot({ path: join(IMAGES, shot) });
        }
      }
    }
    // The stylesheet and the logo are immutable: a new branding is a new name.
    const page = await openReader();
    const href = (await page.locator('link[href^="/reader/brand/"]').getAttribute('href')) ?? '';
    const css = await fetch(`${d.url}${href}`);
    expect(css.headers.get('cache-control')).toContain('immutable');
    expect(await css.text()).toContain(`--bg:${BACKGROUND}`);
    expect((await fetch(`${d.url}/reader/brand/${'0'.repeat(20)}.css`)).status).toBe(404);
    expect((await fetch(`${d.url}/reader/brand/..%2f..%2fetc.css`)).status).toBe(404);

    // The record says who.
    const changed = (await d.auditLog()).filter((e) => e.type === 'WorkspaceBrandingChanged');
    expect(changed).toHaveLength(1);
    expect(JSON.stringify(changed[0])).toContain('owner@example.com');

    // All back to the reader's own: no brand stylesheet, no logo.
    await owner.goto(`${d.url}/dashboard/workspace`);
    await owner.locator('input[name="accent_choice"][value="reader"]').check();
    await owner.locator('input[name="background_choice"][value="reader"]').check();
    await owner.getByLabel('Remove the logo').check();
    await owner.getByRole('button', { name: 'Save' }).click();
    await owner.waitForURL(/saved=1/);
    const plain = await openReader();
    expect(await plain.locator('link[href^="/reader/brand/"]').count()).toBe(0);
    expect(await plain.locator('.bar img.logo').count()).toBe(0);
  });

  it('refuses in words: no colour, no image, an SVG, a file too large; a member may only look', async () => {
    const owner = await d.signedIn('owner2@example.com');
    const refusals: [Record<string, string>, Blob | undefined, number, RegExp][] = [
      [{ accent_choice: 'brand', accent: 'blue' }, undefined, 400, /accent must be a colour/],
      [{}, new Blob(['not an image']), 400, /must be a PNG, JPEG, WebP or GIF/],
      [{}, new Blob(['<svg xmlns="http://www.w3.org/2000/svg"/>']), 400, /must be a PNG/],
      [{}, new Blob([new Uint8Array(3 * 1024 * 1024)]), 413, /too large/],
    ];
    for (const [fields, file, status, words] of refusals) {
      const answer = await postBranding(owner, fields, file);
      expect(answer.status, JSON.stringify(fields)).toBe(status);
      expect(answer.text).toMatch(words);
    }
    // A form without its CSRF token, or from another site, changes nothing.
    const noToken = await fetch(`${d.url}/dashboard/workspace/branding`, {
      method: 'POST',
      body: new FormData(),
      headers: { origin: 'https://evil.example' },
      redirect: 'manual',
    });
    expect([302, 303, 403]).toContain(noToken.status);

    const member = await d.signedIn('member@example.com', { role: 'member' });
    await member.goto(`${d.url}/dashboard/workspace`);
    expect(await member.locator('form[action="/dashboard/workspace/branding"]').count()).toBe(0);
    expect(await member.locator('#branding').textContent()).toContain(
      'An owner of the workspace can change',
    );
    const refused = await postBranding(member, { accent_choice: 'brand', accent: '#000000' });
    expect(refused.status).toBe(403);
    expect((await d.auditLog()).filter((e) => e.type === 'WorkspaceBrandingChanged')).toHaveLength(
      2,
    );
  });
});
