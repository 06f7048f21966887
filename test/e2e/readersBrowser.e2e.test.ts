// Know who reads (issue 44) in a browser: a daemon with a real SMTP server (serve --smtp-url),
// Chromium on a desktop and a phone: the address form with the link's terms, the code mailed and
// typed, the reader with every page marked with the reader's address (also zoomed), the creator's
// alert, axe on every page, and the screenshots in docs/images. The wire rules of each answer are
// test/spec/readers.spec.test.ts's, in process.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Client,
  client,
  createFlipbook,
  type Json,
  pdf,
  SMALL_PDF,
} from '../support/apiHelpers.ts';
import { axeViolations, DESKTOP, PHONE, useDashboard } from '../support/dashboard.ts';
import { newShareLink, waitDone } from '../support/readerAccess.ts';
import { startSmtpServer } from '../support/smtpServer.ts';
import { waitFor } from '../support/waitFor.ts';

const IMAGES = join(import.meta.dirname, '../../docs/images');
const OWNER = 'olga@example.com';
/** the first page's image, loaded (its width in pixels; 0 until then) */
const NATURAL_WIDTH = "document.querySelector('.stage img')?.naturalWidth ?? 0";

// The mail server first: the daemon is started with its address.
const smtp = await startSmtpServer();

describe('identified readers in Chromium (a daemon, a real SMTP server)', () => {
  const d = useDashboard('postgres', [
    '--workers',
    '1',
    '--smtp-url',
    `smtp://127.0.0.1:${smtp.port}`,
    '--mail-from',
    'Flipbook <flipbook@example.com>',
  ]);
  let c: Client;
  let book = { flipbookId: '', versionId: '' };

  beforeAll(async () => {
    c = client(d.fx.api, d.fx.key);
    // the owner the links' alerts go to (the API key is no person's)
    await d.signedIn(OWNER);
    book = await createFlipbook(
      c,
      { visibility: 'links', title: 'Price list 2027' },
      pdf(SMALL_PDF),
    );
    await waitDone(c, book.flipbookId, book.versionId);
  });
  afterAll(async () => {
    await smtp.close();
  });

  const newLink = (body: Json) => newShareLink(c, book.flipbookId, body);
  const codeFor = (to: string) =>
    waitFor(`a code mailed to ${to}`, () => {
      const mail = smtp.received.filter((m) => m.to.includes(to)).at(-1);
      return mail && /\b(\d{6})\b/.exec(mail.subject)?.[1];
    });

  it('asks for the address and the terms, mails a code, and marks every page with the reader', async () => {
    const link = await newLink({
      label: 'Ann, Acme',
      identify: 'verified_email',
      terms: 'These prices are confidential.\n\nDo not forward this link.',
      watermark: true,
      notify: true,
    });
    const page = await d.open({ ...DESKTOP, bypassCSP: true });
    await page.goto(link.url);
    await page.getByLabel('Email address').waitFor();
    expect(await axeViolations(page), 'the address form').toEqual([]);
    expect(await page.locator('#identify-notice').textContent()).toContain(
      'will see your email address',
    );
    await page.screenshot({ path: join(IMAGES, 'reader-identify-desktop.png') });
    await page.getByLabel('Email address').fill('ann@acme.example');
    // The terms are required: the browser holds the form back until they are accepted.
    await page.getByRole('button', { name: 'Continue' }).click();
    expect(await page.locator('#code-required').count()).toBe(0);
    await page.getByLabel('I accept these terms').check();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.locator('#code-required').waitFor();
    expect(await axeViolations(page), 'the code form').toEqual([]);
    await page.screenshot({ path: join(IMAGES, 'reader-code-desktop.png') });
    await page
      .getByLabel('Code')
      .fill('000000' === (await codeFor('ann@acme.example')) ? '111111' : '000000');
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('That code is not right');
    await page.getByLabel('Code').fill(await codeFor('ann@acme.example'));
    await page.getByRole('button', { name: 'Open' }).click();
    const first = page.locator('.stage img').first();
    await first.waitFor();
    await expect.poll(() => page.evaluate(NATURAL_WIDTH)).toBeGreaterThan(0);
    expect(await first.getAttribute('src')).toContain('/a/');
    await page.screenshot({ path: join(IMAGES, 'reader-watermark-desktop.png') });
    // Zoomed in: the tiles are marked too.
    await page.locator('[data-action="zoom-in"]').click();
    await page.waitForSelector('.book.zoomed');
    await page.screenshot({ path: join(IMAGES, 'reader-watermark-zoomed.png') });
    // The creator is told.
    const alert = await waitFor('the alert', () =>
      smtp.received.find(
        (m) => m.to.includes(OWNER) && m.subject.startsWith('ann@acme.example opened'),
      ),
    );
    expect(alert.text).toContain('Ann, Acme');
    // Back later in the same browser: not asked again.
    await page.goto(link.url);
    await page.locator('.stage img').first().waitFor();
    expect(await page.locator('#identify-required').count()).toBe(0);
  });

  it('on a phone: the form and the marked reader fit the screen', async () => {
    const link = await newLink({
      label: 'Phone',
      identify: 'email',
      terms: 'Confidential.',
      watermark: true,
    });
    const phone = await d.open({ ...PHONE, bypassCSP: true });
    await phone.goto(link.url);
    await phone.getByLabel('Email address').waitFor();
    expect(await axeViolations(phone), 'the address form, phone').toEqual([]);
    expect(await phone.evaluate('document.documentElement.scrollWidth <= innerWidth')).toBe(true);
    await phone.screenshot({ path: join(IMAGES, 'reader-identify-phone.png') });
    // Not an address: refused in words, what was typed kept in the field.
    await phone.getByLabel('Email address').fill('ann@localhost');
    await phone.getByLabel('I accept these terms').check();
    await phone.evaluate("document.querySelector('#email').type = 'text'");
    await phone.getByRole('button', { name: 'Continue' }).click();
    await phone.getByRole('alert').waitFor();
    expect(await phone.getByRole('alert').textContent()).toContain('not an email address');
    await phone.getByLabel('Email address').fill('pat@example.org');
    await phone.getByLabel('I accept these terms').check();
    await phone.getByRole('button', { name: 'Continue' }).click();
    const first = phone.locator('.stage img').first();
    await first.waitFor();
    await expect.poll(() => phone.evaluate(NATURAL_WIDTH)).toBeGreaterThan(0);
    expect(await axeViolations(phone), 'the marked reader, phone').toEqual([]);
    await phone.screenshot({ path: join(IMAGES, 'reader-watermark-phone.png') });
  });
});
