// Know who reads (issue 44; docs/access.md, "Who reads"): share links that ask for an address or a
// mailed code, terms, allow lists, remembered readers, alerts and their summary, webhooks,
// per-reader figures and CSV, watermarked pages and downloads, downloads off, and erasure. The
// whole app in process with one processing lane, a real SMTP server (the mail sender in process)
// and a real webhook receiver (the webhook sender in process); the clock moved, never waited for.
// The browser's view of it is test/e2e/readersBrowser.e2e.test.ts's.
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptInvitation, inviteUser } from '../../src/app/accounts/people.ts';
import { verifyChain } from '../../src/app/audit.ts';
import { sendEndedReadings } from '../../src/app/readerAlerts.ts';
import { logger } from '../../src/log.ts';
import { parseMailFrom, parseSmtpUrl } from '../../src/mail/mailSettings.ts';
import { startMailSender } from '../../src/mail/sender.ts';
import { startWebhookSender } from '../../src/webhooks/sender.ts';
import {
  type Client,
  client,
  createFlipbook,
  expectJson,
  type Json,
  pdf,
  SMALL_PDF,
} from '../support/apiHelpers.ts';
import { type AppUnderTest, startApp } from '../support/appSpec.ts';
import { PASSWORD } from '../support/dashboard.ts';
import { appFetch } from '../support/inProcess.ts';
import { TEST_METADATA } from '../support/metadata.ts';
import { grantRoot, newShareLink, processedBook } from '../support/readerAccess.ts';
import { type SmtpServerUnderTest, startSmtpServer } from '../support/smtpServer.ts';
import { waitFor } from '../support/waitFor.ts';
import { type Receiver, startReceiver, verified } from '../support/webhookReceiver.ts';

const run = promisify(execFile);
const OWNER = 'owner@acme.example';

describe('identified readers (in process, a real SMTP server and webhook receiver)', () => {
  let app: AppUnderTest;
  let c: Client;
  let smtp: SmtpServerUnderTest;
  let receiver: Receiver;
  let stops: (() => Promise<void>)[] = [];
  let hookSecret = '';
  let book = { flipbookId: '', versionId: '' };

  beforeAll(async () => {
    app = await startApp({ workers: 1, mailConfigured: true, webhookAllowPrivate: true });
    c = client(app.api, app.key);
    smtp = await startSmtpServer();
    const mail = startMailSender(app.store, logger, app.clock, {
      settings: {
        smtp: parseSmtpUrl(`smtp://127.0.0.1:${smtp.port}`),
        from: parseMailFrom('Flipbook <flipbook@example.com>'),
      },
      tickMs: 50,
    });
    receiver = await startReceiver(() => app.clock.now().getTime());
    const hooks = startWebhookSender(app.store, logger, app.clock, {
      allowPrivate: true,
      tickMs: 50,
    });
    stops = [() => mail.stop(), () => hooks.stop(), () => receiver.close(), () => smtp.close()];
    // the workspace's owner: the links' alerts go to them (the API key is no person's)
    const { token } = await inviteUser(
      app.store,
      { workspaceId: app.workspaceId, email: OWNER, role: 'owner' },
      TEST_METADATA,
      app.clock,
    );
    await acceptInvitation(app.store, { token, password: PASSWORD }, {}, app.clock);
    const hook = await c.post('/webhooks', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        url: receiver.url('/readers'),
        events: ['reader.identified', 'share_link.opened', 'share_link.read'],
      }),
    });
    expectJson(hook, 201);
    hookSecret = hook.body.secret as string;
    book = await processedBook(c, { visibility: 'links', title: 'Board pack' });
  });
  afterAll(async () => {
    for (const stop of stops) await stop();
    await app?.stop();
  });

  const newLink = (body: Json) => newShareLink(c, book.flipbookId, body);
  const form = (url: string, fields: Record<string, string>, cookie = '') =>
    appFetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams(fields).toString(),
    });
  /** The cookie an answer sets (name=value), by name. */
  const cookieOf = (reply: Response, name: string) =>
    reply.headers
      .getSetCookie()
      .map((c) => c.split(';')[0] as string)
      .find((c) => c.startsWith(`${name}=`)) ?? '';
  const page = async (url: string, cookie = '') => {
    const reply = await appFetch(url, { headers: { cookie } });
    return { status: reply.status, html: await reply.text() };
  };
  const mailsTo = (to: string) => smtp.received.filter((m) => m.to.includes(to));
  const codeIn = (to: string) =>
    waitFor(`a code mailed to ${to}`, () => {
      const mail = mailsTo(to).at(-1);
      return mail && /\b(\d{6})\b/.exec(mail.subject)?.[1];
    });
  const readers = async (linkId: string) => {
    const reply = await c.get(`/flipbooks/${book.flipbookId}/links/${linkId}/readers`);
    expectJson(reply, 200);
    return reply.body.readers as Json[];
  };

  it('refuses rules that need an address or mail, in words', async () => {
    const create = (body: Json) =>
      c.post(`/flipbooks/${book.flipbookId}/links`, {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ label: 'x', ...body }),
      });
    const watermarkAlone = await create({ watermark: true });
    expect(watermarkAlone.status).toBe(400);
    expect(watermarkAlone.body.error).toBe(
      'watermark needs the reader\'s address: set identify to "email" or "verified_email"',
    );
    expect((await create({ identify: 'phone' })).body.error).toMatch(/^Invalid identify/);
    const badAllow = await create({ identify: 'email', allow: ['not an address at all'] });
    expect(badAllow.status).toBe(400);
    expect(badAllow.body.error).toMatch(/^allow entry 1 is neither an address nor a domain/);
    expect(badAllow.body.error).not.toContain('not an address at all');
    // Without a mail server: no codes, no alerts.
    const bare = await startApp({ mailConfigured: false });
    try {
      const bareBook = await createFlipbook(client(bare.api, bare.key), {}, pdf(SMALL_PDF));
      const refused = await client(bare.api, bare.key).post(
        `/flipbooks/${bareBook.flipbookId}/links`,
        {
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ label: 'x', identify: 'verified_email', notify: true }),
        },
      );
      expect(refused.status).toBe(422);
      expect(refused.body.error).toMatch(/needs? mail, and this service has no mail server/);
    } finally {
      await bare.stop();
    }
  });

  it('tells the creator and the webhooks, and sums a reading up when it ends', async () => {
    const link = await newLink({ label: 'Jane, Acme', identify: 'email', notify: true });
    const given = await form(link.url, { step: 'email', email: 'jane@acme.example' });
    const cookie = cookieOf(given, 'flipbook_reader');
    const reading = await page(link.url, cookie);
    const alert = await waitFor('the alert', () =>
      mailsTo(OWNER).find((m) => m.subject === 'jane@acme.example opened Board pack'),
    );
    expect(alert.text).toContain('Jane, Acme');
    // The reader reads: a beacon with the token the page carries.
    const token = /"token":"([^"]+)"/.exec(reading.html)?.[1];
    expect(token).toBeDefined();
    const beacon = await appFetch(`${app.base}/b`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({
        v: 1,
        t: token,
        e: [
          { k: 'open' },
          { k: 'page', p: 1, s: 20 },
          { k: 'page', p: 2, s: 12 },
          { k: 'page', p: 3, s: 10 },
        ],
      }),
    });
    expect(await beacon.text()).toBe('');
    expect(beacon.status).toBe(202);
    await waitFor('the reading counted', async () => {
      const [jane] = await readers(link.id);
      return jane && (jane.read_seconds as number) >= 42 ? jane : undefined;
    });
    // The download, through the link, counted for her.
    const root = grantRoot(reading.html, app.base);
    expect((await appFetch(`${root}/originals/${book.versionId}`)).status).toBe(200);
    /** the deliveries about this link, signed with the endpoint's secret */
    const hooksOf = () =>
      receiver
        .at('/readers')
        .map((r) => JSON.parse(r.body) as { type: string; data: Json })
        .filter((p) => (p.data.share_link as Json).id === link.id);
    const early = await waitFor('the first two webhooks', () =>
      hooksOf().length >= 2 ? receiver.at('/readers') : undefined,
    );
    // Signed as the others (checked before the clock moves: a signature's time is the app's).
    // (the first test to move the clock: signatures are checked against the real one)
    for (const r of early) expect(verified(hookSecret, r)).toBeTruthy();
    // 30 minutes of quiet: the summary, once.
    expect(await sendEndedReadings(app)).toBe(0);
    app.clock.advance(31 * 60_000);
    expect(await sendEndedReadings(app)).toBeGreaterThanOrEqual(1);
    expect(await sendEndedReadings(app)).toBe(0);
    const summary = await waitFor('the summary', () =>
      mailsTo(OWNER).find((m) => m.subject === 'jane@acme.example read Board pack'),
    );
    expect(summary.text).toContain('Time read: 42 s');
    expect(summary.text).toContain('Pages seen: 3 of 3 (all)');
    expect(summary.text).toContain('Downloaded: yes');
    const hooks = await waitFor('the three webhooks', () =>
      hooksOf().length >= 3 ? hooksOf() : undefined,
    );
    expect(hooks.map((h) => h.type)).toEqual([
      'reader.identified',
      'share_link.opened',
      'share_link.read',
    ]);
    expect(hooks[2]?.data).toMatchObject({
      reader: { email: 'jane@acme.example' },
      reading: { read_seconds: 42, pages_seen: 3, completed: true, downloads: 1 },
    });
    // As CSV too.
    const csv = await appFetch(`${app.api}/flipbooks/${book.flipbookId}/links/${link.id}/readers`, {
      headers: { authorization: `Bearer ${app.key}`, accept: 'text/csv' },
    });
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const lines = (await csv.text()).trim().split('\r\n');
    expect(lines[0]).toBe(
      'email,verified,identified_at,terms_accepted_at,first_opened_at,last_opened_at,opens,read_seconds,pages_seen,page_count,last_page,completed,downloads',
    );
    expect(lines[1]).toMatch(/^jane@acme\.example,false,.*,1,42,3,3,3,true,1$/);
  });

  it('asks for an address and the terms, remembers the reader, and asks again when the rules change', async () => {
    const terms = 'Confidential.\n\nDo not share <this> & that.';
    const link = await newLink({ label: 'Board', identify: 'email', terms });
    expect(link).toMatchObject({ identify: 'email', terms, allow: [], readers: 0 });
    const first = await page(link.url);
    expect(first.status).toBe(200);
    expect(first.html).toContain('id="identify-required"');
    expect(first.html).toContain('will see your email address');
    expect(first.html).toContain('&lt;this&gt; &amp; that');
    expect(first.html).not.toContain('/a/');
    // No terms accepted, not an address: the form again, in words, nothing recorded.
    const noTerms = await form(link.url, { step: 'email', email: 'ann@example.org' });
    expect(noTerms.status).toBe(400);
    expect(await noTerms.text()).toContain('Accept the terms to read');
    const notAddress = await form(link.url, {
      step: 'email',
      email: '<script>x</script>',
      accept: 'yes',
    });
    expect(notAddress.status).toBe(400);
    const refusedHtml = await notAddress.text();
    expect(refusedHtml).toContain('is not an email address');
    expect(refusedHtml).not.toContain('<script>x</script>');
    // Another site cannot make a visitor's browser identify itself here (as someone it chose):
    // refused with the link's own form; a form that cannot be read likewise (not the password's).
    const valid = new URLSearchParams({ step: 'email', email: 'x@ex.org', accept: 'yes' });
    for (const [headers, body, status] of [
      [{ origin: 'https://evil.example' }, valid.toString(), 403],
      [{ 'sec-fetch-site': 'cross-site' }, valid.toString(), 403],
      [{}, Buffer.from('step=email&email=caf\xe9@x.org&accept=yes', 'latin1'), 400],
    ] as const) {
      const reply = await appFetch(link.url, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body,
      });
      expect(reply.status).toBe(status);
      expect(reply.headers.getSetCookie()).toEqual([]);
      const html = await reply.text();
      expect(html).toContain('id="identify-required"');
      expect(html).not.toContain('name="password"');
    }
    // In the reader's language: general words, never another refusal's.
    const german = await appFetch(link.url, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'https://evil.example',
        'accept-language': 'de',
      },
      body: valid.toString(),
    });
    const said = await german.text();
    expect(said).toContain('Dieses Formular konnte nicht angenommen werden');
    expect(said).not.toContain('keine E-Mail-Adresse');
    // A link that asks nothing: back to it; a token no link has: not found.
    const plain = await newLink({ label: 'Plain' });
    const forged = (url: string) =>
      appFetch(url, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: 'https://evil.example',
        },
        body: 'password=x',
      });
    const back = await forged(plain.url);
    expect([back.status, back.headers.get('location')]).toEqual([303, new URL(plain.url).pathname]);
    expect((await forged(`${plain.url.slice(0, -4)}AAAA`)).status).toBe(404);
    expect(await readers(link.id)).toEqual([]);
    const given = await form(link.url, { step: 'email', email: 'Ann@Example.org', accept: 'yes' });
    expect(given.status).toBe(303);
    const set = given.headers.getSetCookie().join('\n');
    expect(set).toMatch(
      /flipbook_reader=[^;]+; Path=\/s\/[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Lax; Max-Age=2592000/,
    );
    const cookie = cookieOf(given, 'flipbook_reader');
    const reading = await page(link.url, cookie);
    expect(reading.html).toContain('/a/');
    expect(reading.html).not.toContain('identify-required');
    // Another browser (no cookie), a forged cookie, one of another link: asked.
    expect((await page(link.url)).html).toContain('identify-required');
    expect((await page(link.url, `${cookie}x`)).html).toContain('identify-required');
    const other = await newLink({ label: 'Other', identify: 'email' });
    expect((await page(other.url, cookie)).html).toContain('identify-required');
    const [ann] = await readers(link.id);
    expect(ann).toMatchObject({
      email: 'Ann@example.org',
      verified: false,
      opens: 1,
      page_count: 3,
      completed: false,
    });
    expect(ann?.terms_accepted_at).toEqual(ann?.identified_at);
    // The terms as accepted are kept with the acceptance.
    const kept = await app.store.db.query('SELECT terms FROM link_readers WHERE link_id = $1', [
      link.id,
    ]);
    expect(kept.rows[0]?.terms).toBe(terms);
    // New terms: asked again (the cookie was for the old rules).
    const edited = await c.patch(`/flipbooks/${book.flipbookId}/links/${link.id}`, {
      terms: 'New terms.',
    });
    expectJson(edited, 200);
    expect((await page(link.url, cookie)).html).toContain('identify-required');
    // The grants given before the change no longer open the files either.
    const root = grantRoot(reading.html, app.base);
    expect((await appFetch(`${root}/pages/${book.versionId}/1/mid.jpg`)).status).toBe(404);
  });

  it('bounds the new readers one client adds to a link, and a link’s readers in all', async () => {
    const link = await newLink({ label: 'Flooded', identify: 'email' });
    const give = (email: string) => form(link.url, { step: 'email', email, accept: 'yes' });
    for (let i = 0; i < 50; i++) expect((await give(`r${i}@example.org`)).status).toBe(303);
    // The 51st from this address in 15 minutes: refused in words, with when to try again.
    const refused = await give('r50@example.org');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('900');
    expect(await refused.text()).toContain('Too many attempts for now: try again in a few minutes');
    // A reader already known gives their address again (another browser): let in.
    expect((await give('r7@example.org')).status).toBe(303);
    // Another link is another count.
    const other = await newLink({ label: 'Not flooded', identify: 'email' });
    expect(
      (await form(other.url, { step: 'email', email: 'r50@example.org', accept: 'yes' })).status,
    ).toBe(303);
    // 15 minutes on: room again.
    app.clock.advance(15 * 60_000 + 1);
    expect((await give('r50@example.org')).status).toBe(303);
    expect(await readers(link.id)).toHaveLength(51);

    // A link keeps 10,000 readers at most (the rest of them made as an hour ago).
    const before = new Date(app.clock.now().getTime() - 2 * 3_600_000);
    await app.store.db.query(
      `INSERT INTO link_readers (reader_id, link_id, flipbook_id, workspace_id, kid, email_ct,
         created_at)
       SELECT gen_random_uuid(), l.link_id, l.flipbook_id, l.workspace_id, 'kid-' || n, NULL, $2
       FROM share_links l, generate_series(1, 10000 - 51) AS n WHERE l.link_id = $1`,
      [link.id, before],
    );
    const full = await give('one.more@example.org');
    expect(full.status).toBe(409);
    expect(await full.text()).toContain(
      'This link has as many readers as it can keep: ask whoever shared it for a new link',
    );
  });

  it('limits a link to addresses and domains', async () => {
    const link = await newLink({
      label: 'Partners',
      identify: 'email',
      allow: ['Acme.com', 'bob@x.org'],
    });
    expect(link.allow).toEqual(['acme.com', 'bob@x.org']);
    const refused = await form(link.url, { step: 'email', email: 'eve@evil.example' });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('This link is not for that address');
    expect((await form(link.url, { step: 'email', email: 'carol@sub.acme.com' })).status).toBe(403);
    expect((await form(link.url, { step: 'email', email: 'carol@ACME.com' })).status).toBe(303);
    expect((await form(link.url, { step: 'email', email: 'BOB@x.org' })).status).toBe(303);
  });

  it('mails a code: right, wrong, expired, and throttled', async () => {
    const link = await newLink({ label: 'Verified', identify: 'verified_email', notify: true });
    const ask = await form(link.url, { step: 'email', email: 'dan@example.org' });
    expect(ask.status).toBe(303);
    const waiting = cookieOf(ask, 'flipbook_code');
    expect(waiting).not.toBe('');
    const codePage = await page(link.url, waiting);
    expect(codePage.html).toContain('id="code-required"');
    expect(codePage.html).toContain('dan@example.org');
    const code = await codeIn('dan@example.org');
    // Wrong: one answer, and the page again.
    const wrong = await form(
      link.url,
      { step: 'code', code: code === '000000' ? '111111' : '000000' },
      waiting,
    );
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('That code is not right, or no longer good');
    // Expired: the clock moved past ten minutes (the cookie too): asked for the address again.
    app.clock.advance(11 * 60_000);
    const late = await form(link.url, { step: 'code', code }, waiting);
    expect(late.status).toBe(303);
    expect((await page(link.url, waiting)).html).toContain('identify-required');
    // A new code, right this time.
    const again = await form(link.url, { step: 'email', email: 'dan@example.org' });
    const waitingAgain = cookieOf(again, 'flipbook_code');
    const fresh = await waitFor('a second code', async () => {
      const mails = mailsTo('dan@example.org');
      return mails.length >= 2 ? /\b(\d{6})\b/.exec(mails.at(-1)?.subject ?? '')?.[1] : undefined;
    });
    const right = await form(link.url, { step: 'code', code: fresh }, waitingAgain);
    expect(right.status).toBe(303);
    const cookie = cookieOf(right, 'flipbook_reader');
    expect((await page(link.url, cookie)).html).toContain('/a/');
    const [dan] = await readers(link.id);
    expect(dan).toMatchObject({ email: 'dan@example.org', verified: true, opens: 1 });
    // The same code again: used up.
    expect((await form(link.url, { step: 'code', code: fresh }, waitingAgain)).status).toBe(401);
    // Guessing: throttled (per link and client), and a throttled guess is refused unchecked.
    const guesser = await form(link.url, { step: 'email', email: 'guess@example.org' });
    const guessCookie = cookieOf(guesser, 'flipbook_code');
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      statuses.push(
        (await form(link.url, { step: 'code', code: String(100000 + i) }, guessCookie)).status,
      );
    }
    expect(statuses).toContain(429);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(5);
  });

  it('marks every page and the download with the reader, and closes downloads when told', async () => {
    const link = await newLink({ label: 'Marked', identify: 'email', watermark: true });
    const given = await form(link.url, { step: 'email', email: 'mark@example.org' });
    const cookie = cookieOf(given, 'flipbook_reader');
    const root = grantRoot((await page(link.url, cookie)).html, app.base);
    const plain = await app.blobs.readPageBytes(book.versionId, 1, 'mid.jpg');
    const marked = await appFetch(`${root}/pages/${book.versionId}/1/mid.jpg`);
    expect(marked.status).toBe(200);
    expect(marked.headers.get('cache-control')).toBe('private, no-cache');
    const bytes = Buffer.from(await marked.arrayBuffer());
    const [a, b] = await Promise.all(
      [plain as Buffer, bytes].map((x) => sharp(x).raw().toBuffer({ resolveWithObject: true })),
    );
    expect(b?.info.width).toBe(a?.info.width);
    let differ = 0;
    for (let i = 0; i < (a?.data.length ?? 0); i++) {
      if (Math.abs((a?.data[i] ?? 0) - (b?.data[i] ?? 0)) > 12) differ++;
    }
    expect(differ).toBeGreaterThan(1000);
    // Revalidated as the same mark: 304.
    const etag = marked.headers.get('etag') ?? '';
    const again = await appFetch(`${root}/pages/${book.versionId}/1/mid.jpg`, {
      headers: { 'if-none-match': etag },
    });
    expect(again.status).toBe(304);
    // The download: the address on every page (pdftotext).
    const download = await appFetch(`${root}/originals/${book.versionId}`);
    expect(download.status).toBe(200);
    const dir = await mkdtemp(join(tmpdir(), 'marked-'));
    await writeFile(join(dir, 'marked.pdf'), Buffer.from(await download.arrayBuffer()));
    const { stdout } = await run('pdftotext', [join(dir, 'marked.pdf'), '-']);
    const pages = stdout.split('\f').filter((p) => p.trim() !== '');
    expect(pages.length).toBeGreaterThan(0);
    for (const text of pages) expect(text).toContain('mark@example.org');
    // Downloads off for the link: no URL of the PDF answers.
    await c.patch(`/flipbooks/${book.flipbookId}/links/${link.id}`, { allow_download: false });
    expect((await appFetch(`${root}/originals/${book.versionId}`)).status).toBe(404);
    expect((await page(link.url, cookie)).html).not.toContain('/originals/');
  });

  it('asks for the password before the address, and mails codes without the owner’s words, a few an hour an address', async () => {
    const locked = await newLink({ label: 'Both', identify: 'email', password: 'hunter2hunter2' });
    const skipped = await form(locked.url, { step: 'email', email: 'pw@x.org' });
    expect(skipped.status).toBe(401);
    expect(await skipped.text()).toContain('id="password-required"');
    expect(await readers(locked.id)).toEqual([]);
    const unlocked = await form(locked.url, { step: 'password', password: 'hunter2hunter2' });
    const proof = cookieOf(unlocked, 'flipbook_link');
    expect((await page(locked.url, proof)).html).toContain('identify-required');
    expect((await form(locked.url, { step: 'email', email: 'pw@x.org' }, proof)).status).toBe(303);
    // Codes: the mail says nothing the owner wrote (the title), and one address gets five an
    // hour, whichever links ask and from wherever.
    const links = await Promise.all(
      [1, 2, 3].map((n) => newLink({ label: `spam ${n}`, identify: 'verified_email' })),
    );
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const link = links[i % links.length] as Json;
      statuses.push(
        (await form(link.url as string, { step: 'email', email: 'victim@example.org' })).status,
      );
    }
    expect(statuses.slice(0, 5)).toEqual([303, 303, 303, 303, 303]);
    expect(statuses.slice(5)).toEqual([429, 429]);
    const mails = await waitFor('five codes', () => {
      const got = mailsTo('victim@example.org');
      return got.length >= 5 ? got : undefined;
    });
    for (const mail of mails) {
      expect(mail.subject).toMatch(/^Your code: \d{6}$/);
      expect(mail.text).not.toContain('Board pack');
    }
  });

  it('shows international domains as people write them, and names a bad allow entry by its place', async () => {
    const link = await newLink({
      label: 'IDN',
      identify: 'email',
      allow: ['bücher.example', 'xn--bcher-kva.example', 'ann@Bücher.example'],
    });
    expect(link.allow).toEqual(['bücher.example', 'ann@bücher.example']);
    expect((await form(link.url, { step: 'email', email: 'Zoë@BÜCHER.example' })).status).toBe(303);
    expect((await readers(link.id)).map((r) => r.email)).toEqual(['Zoë@bücher.example']);
    const bad = await c.post(`/flipbooks/${book.flipbookId}/links`, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ label: 'x', identify: 'email', allow: ['a.org', 'bob@localhost'] }),
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^allow entry 2 is not an email address: /);
    expect(bad.body.error).not.toContain('bob');
  });

  it('erases a reader everywhere, keeps their figures without a name, and the audit chain', async () => {
    const link = await newLink({
      label: 'Erase',
      identify: 'email',
      notify: true,
      allow: ['zoe@example.org', 'example.org'],
    });
    const given = await form(link.url, { step: 'email', email: 'zoe@example.org' });
    const cookie = cookieOf(given, 'flipbook_reader');
    await page(link.url, cookie);
    expect((await readers(link.id)).map((r) => r.email)).toEqual(['zoe@example.org']);
    const erased = await c.del(`/readers/${encodeURIComponent('ZOE@example.org')}`);
    expectJson(erased, 200);
    expect(erased.body).toEqual({ erased: 1 });
    expect(await readers(link.id)).toEqual([]);
    const shown = await c.get(`/flipbooks/${book.flipbookId}/links/${link.id}`);
    expect(shown.body).toMatchObject({ allow: ['example.org'], allow_limited: true, readers: 0 });
    // A link limited to that address alone: closed to everyone, and says so.
    const only = await newLink({
      label: 'Only zoe',
      identify: 'email',
      allow: ['zoe2@example.org'],
    });
    await c.del(`/readers/${encodeURIComponent('zoe2@example.org')}`);
    const closed = await c.get(`/flipbooks/${book.flipbookId}/links/${only.id}`);
    expect(closed.body).toMatchObject({ allow: [], allow_limited: true });
    expect((await form(only.url, { step: 'email', email: 'stranger@evil.example' })).status).toBe(
      403,
    );
    // Asked again at the link: the cookie names a reader who is no more.
    expect((await page(link.url, cookie)).html).toContain('identify-required');
    // Nowhere in the database's tables of readers, mails not sent, or webhook payloads.
    const found = await app.store.db.query(
      `SELECT
         (SELECT count(*) FROM link_readers WHERE link_id = $1 AND kid IS NOT NULL)::int AS named,
         (SELECT count(*) FROM link_readers WHERE link_id = $1)::int AS kept,
         (SELECT count(*) FROM webhook_deliveries WHERE payload::text ILIKE '%zoe@%')::int AS hooks,
         (SELECT count(*) FROM emt_messages WHERE message_data::text ILIKE '%zoe@%')::int AS events`,
      [link.id],
    );
    expect(found.rows[0]).toEqual({ named: 0, kept: 1, hooks: 0, events: 0 });
    const events = await app.newEvents();
    const record = events.find((e) => e.type === 'ReaderErased');
    expect(record?.data).toMatchObject({ workspaceId: app.workspaceId, readers: 1 });
    expect(JSON.stringify(record)).not.toMatch(/zoe/i);
    // The audit chain verifies after the erasure, as before it.
    expect(await verifyChain(app.store)).toMatchObject({ intact: true });
    // Unknown and bad addresses.
    expect((await c.del(`/readers/${encodeURIComponent('nobody@example.org')}`)).body).toEqual({
      erased: 0,
    });
    const bad = await c.del('/readers/not-an-address');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/is not an email address/);
    // Another workspace's erasure does not touch this one's readers.
    const other = await app.newWorkspace('other-co');
    const again = await form(link.url, { step: 'email', email: 'zoe@example.org' });
    expect(again.status).toBe(303);
    await page(link.url, cookieOf(again, 'flipbook_reader'));
    const theirs = await client(app.api, other.key).del(
      `/readers/${encodeURIComponent('zoe@example.org')}`,
    );
    expect(theirs.body).toEqual({ erased: 0 });
    expect((await readers(link.id)).map((r) => r.email)).toEqual(['zoe@example.org']);
  });
});
