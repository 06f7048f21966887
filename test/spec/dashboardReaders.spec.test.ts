// Who reads a share link, in the dashboard (issue 44), the forms' answers without a browser (the
// app in process, test/support/dashboardSpec.ts): the link form's reader rules (create, and the
// link's own page), refusals in words, the code and the mail refused without a mail server, a
// link's readers once one gave an address at the reader's own form, their CSV, erasing a reader
// (owners only, after a confirmation), "mail is failing", CSRF and isolation. What Chromium shows
// (axe, the screenshots) is test/e2e/dashboardReaders.e2e.test.ts's.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { client, createFlipbook, expectJson } from '../support/apiHelpers.ts';
import { useApp } from '../support/appSpec.ts';
import {
  alertsOf,
  dashboardOf,
  formActionsOf,
  h1Of,
  rowsOf,
  type SignedInVisitor,
  statusesOf,
  textOf,
} from '../support/dashboardSpec.ts';
import { appFetch } from '../support/inProcess.ts';

/** The URL shown once after "Create the link". */
const shownUrl = (html: string) =>
  textOf(/<code id="new-link"[^>]*>([^<]*)<\/code>/.exec(html)?.[1] ?? '');
/** An input's opening tag by name and value (a radio, a checkbox). */
const inputOf = (html: string, name: string, value: string) =>
  new RegExp(`<input\\b[^>]*name="${name}" value="${value}"[^>]*>`).exec(html)?.[0] ?? '';
const textareaOf = (html: string, name: string) =>
  textOf(
    new RegExp(`<textarea\\b[^>]*name="${name}"[^>]*>([^<]*)</textarea>`).exec(html)?.[1] ?? '',
  );

const LINK_FORM = {
  label: 'Jane Doe, Acme',
  expires: '',
  password: '',
  allow_download: 'true',
};

/** A reader gives their address at the link's own form (the reader's page, no script). */
const identify = async (url: string, email: string, accept = true) => {
  const { origin, pathname } = new URL(url);
  const reply = await appFetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
    body: new URLSearchParams({ step: 'email', email, ...(accept ? { accept: 'yes' } : {}) }),
  });
  expect(reply.status, await reply.text()).toBe(303);
  expect(reply.headers.get('location')).toBe(pathname);
  expect(reply.headers.getSetCookie().join(';')).toMatch(/^flipbook_reader=/);
};

describe('dashboard: who reads a share link (mail configured)', () => {
  const app = useApp({ mailConfigured: true });
  const d = () => dashboardOf(app);
  let owner: SignedInVisitor;
  let bookId = '';
  const links = () => `/dashboard/flipbooks/${bookId}/links`;

  const linkOf = async (linkId: string) => {
    const reply = await app.c.get(`/flipbooks/${bookId}/links/${linkId}`);
    expectJson(reply, 200);
    return reply.body;
  };
  const newest = async () => {
    const reply = await app.c.get(`/flipbooks/${bookId}/links`);
    return reply.body.links.at(-1);
  };

  it('creates a link that asks who reads, with every rule, through the form without a script', async () => {
    owner = await d().signedIn('owner@example.com');
    bookId = (await createFlipbook(app.c, { title: 'Board pack' })).flipbookId;
    const page = await owner.get(links());
    expect(page.status).toBe(200);
    // Every choice open: a mail server was given.
    expect(inputOf(page.text, 'identify', 'none')).toContain('checked');
    expect(inputOf(page.text, 'identify', 'verified_email')).not.toContain('disabled');
    expect(inputOf(page.text, 'notify', 'true')).not.toContain('disabled');
    expect(page.text).not.toContain('--smtp-url');
    expect(page.text).not.toContain('Mail is failing');

    const made = await owner.post(links(), {
      ...LINK_FORM,
      identify: 'verified_email',
      terms: 'Confidential: for the board only.',
      allow: 'acme.com\r\n\r\n  Bob@Example.org \r\n',
      watermark: 'true',
      notify: 'true',
    });
    expect(made.status, made.text).toBe(200);
    expect(made.url).toBe(`${app.base}${links()}`);
    expect(shownUrl(made.text)).toMatch(/^http:\/\/app-\d+\.test\/s\//);
    const link = await newest();
    expect(link).toMatchObject({
      label: 'Jane Doe, Acme',
      identify: 'verified_email',
      terms: 'Confidential: for the board only.',
      allow: ['acme.com', 'Bob@example.org'],
      watermark: true,
      notify: true,
      readers: 0,
    });
    const [row] = rowsOf(made.text, 'Jane Doe, Acme');
    expect(textOf(row ?? '')).toContain('A confirmed address0 readers');
    expect(formActionsOf(row ?? '')).toEqual([`${links()}/${link.id}/revoke`]);
    expect(row).toContain(`href="${links()}/${link.id}"`);
  });

  it('refuses rules that do not hold together in words, keeping what was typed', async () => {
    const before = (await app.c.get(`/flipbooks/${bookId}/links`)).body.links.length;
    const refusals: [Record<string, string>, RegExp][] = [
      [
        { identify: 'none', watermark: 'true' },
        /^“Mark each page with the reader’s address” needs the reader’s address: under “Who reads”, choose to ask for an email address$/,
      ],
      [{ identify: 'email', allow: 'not an address!' }, /neither an address nor a domain/],
      [
        { identify: 'email', allow: Array.from({ length: 201 }, (_, i) => `r${i}.org`).join('\n') },
        /at most 200 addresses and domains \(201 given\)/,
      ],
      [{ identify: 'everyone' }, /Choose who reads the link/],
      [{ identify: 'email', terms: 'x'.repeat(20_001) }, /terms: at most 20000 characters/],
    ];
    for (const [rules, words] of refusals) {
      const refused = await owner.post(links(), {
        ...LINK_FORM,
        terms: 'Keep this.',
        ...rules,
      });
      expect(refused.status, JSON.stringify(rules)).toBe(400);
      expect(alertsOf(refused.text).join(' ')).toMatch(words);
      expect(refused.text).toContain('value="Jane Doe, Acme"');
      expect(textareaOf(refused.text, 'terms')).toBe(textOf(rules.terms ?? 'Keep this.'));
    }
    expect((await app.c.get(`/flipbooks/${bookId}/links`)).body.links.length).toBe(before);
  });

  it('lists a link’s readers once one gave an address, with their CSV', async () => {
    const made = await owner.post(links(), {
      ...LINK_FORM,
      label: 'Trade fair',
      identify: 'email',
      terms: 'Be kind.',
    });
    const url = shownUrl(made.text);
    const link = await newest();
    const page = `${links()}/${link.id}`;
    // No one yet: said in words, no table.
    const empty = await owner.get(page);
    expect(empty.status).toBe(200);
    expect(h1Of(empty.text)).toBe('Share link for Trade fair');
    expect(empty.text).toContain('No one has given an address at this link yet.');
    expect(empty.text).not.toContain('<table class="readers"');

    await identify(url, 'Ann.Reader@Example.org');
    const listed = await owner.get(page);
    const [row] = rowsOf(listed.text, 'Ann.Reader@example.org');
    expect(row, listed.text).toBeDefined();
    expect(textOf(row ?? '')).toBe('Ann.Reader@example.org No Not yet Not yet 0 s 0 No 0');
    expect(listed.text).toContain(`href="${page}/readers.csv"`);
    expect((await linkOf(link.id)).readers).toBe(1);
    // The links' table counts them.
    expect(textOf(rowsOf((await owner.get(links())).text, 'Trade fair')[0] ?? '')).toContain(
      'An address1 reader',
    );

    const csv = await owner.get(`${page}/readers.csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe(
      `attachment; filename="link-${link.id}-readers.csv"`,
    );
    expect(csv.headers.get('cache-control')).toBe('no-store');
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toMatch(/^email,verified,identified_at,/);
    expect(lines[1]).toMatch(/^Ann\.Reader@example\.org,false,/);
    expect(lines).toHaveLength(2);
  });

  it('changes a link’s rules on its page; refusals in words there', async () => {
    const link = await newest();
    const page = `${links()}/${link.id}`;
    const saved = await owner.post(page, {
      identify: 'email',
      terms: '',
      allow: 'example.org',
      watermark: 'true',
      notify: 'true',
    });
    expect(saved.status).toBe(200);
    expect(saved.url).toBe(`${app.base}${page}?saved=1`);
    expect(statusesOf(saved.text)).toContain('Saved: the link’s next readers meet the new rules.');
    expect(await linkOf(link.id)).toMatchObject({
      identify: 'email',
      terms: null,
      allow: ['example.org'],
      watermark: true,
      notify: true,
    });
    const refused = await owner.post(page, {
      identify: 'none',
      watermark: 'true',
      allow: 'example.org',
    });
    expect(refused.status).toBe(400);
    expect(alertsOf(refused.text).join(' ')).toMatch(
      /^“Mark each page with the reader’s address” and “Only these readers” need the reader’s address/,
    );
    // what was typed is shown again, not the link's own
    expect(inputOf(refused.text, 'identify', 'none')).toContain('checked');
    expect((await linkOf(link.id)).identify).toBe('email');
    // its readers stay listed
    expect(rowsOf(refused.text, 'Ann.Reader@example.org')).toHaveLength(1);
  });

  it('asks for the dashboard’s CSRF token and this site’s origin', async () => {
    const link = await newest();
    const page = `${links()}/${link.id}`;
    const tokenless = await owner.post(page, { identify: 'none', _csrf: '' });
    expect(tokenless.status).toBe(403);
    expect(tokenless.text).toContain('This form has expired');
    const forged = await owner.post(page, {
      identify: 'none',
      _csrf: 'x'.repeat(owner.csrf().length),
    });
    expect(forged.status).toBe(403);
    const elsewhere = await owner.post(
      page,
      { identify: 'none' },
      { origin: 'https://evil.example' },
    );
    expect(elsewhere.status).toBe(403);
    const erase = await owner.post('/dashboard/workspace/readers/erase', {
      email: 'ann.reader@example.org',
      confirm: 'yes',
      _csrf: '',
    });
    expect(erase.status).toBe(403);
    expect((await linkOf(link.id)).identify).toBe('email');
    expect((await linkOf(link.id)).readers).toBe(1);
  });

  it('keeps another workspace’s links as unknown as none', async () => {
    const link = await newest();
    const rivals = await app.newWorkspace('rivals');
    const rival = await d().signedIn('rival@example.com', { workspace: 'rivals' });
    const page = `${links()}/${link.id}`;
    for (const path of [page, `${page}/readers.csv`]) {
      const answer = await rival.get(path);
      expect(answer.status, path).toBe(404);
      expect(answer.text).not.toContain('Ann.Reader');
    }
    expect((await rival.post(page, { identify: 'none' })).status).toBe(404);
    // Their own link's id under our flipbook: not found either.
    const theirBook = await createFlipbook(client(app.api, rivals.key), { title: 'Theirs' });
    const theirs = await client(app.api, rivals.key).post(
      `/flipbooks/${theirBook.flipbookId}/links`,
      {
        body: JSON.stringify({ label: 'Theirs', identify: 'email' }),
        headers: { 'content-type': 'application/json' },
      },
    );
    expectJson(theirs, 201);
    expect((await owner.get(`${links()}/${theirs.body.id}`)).status).toBe(404);
    expect((await owner.get(`${links()}/${randomUUID()}/readers.csv`)).status).toBe(404);
    expect((await owner.get(`${links()}/not-an-id`)).status).toBe(404);
  });

  it('lets owners erase a reader after a confirmation, with the count in words; not members', async () => {
    const link = await newest();
    const member = await d().signedIn('member@example.com', { role: 'member' });
    const seen = await member.get('/dashboard/workspace');
    expect(seen.text).toContain('Privacy: erase a reader');
    expect(formActionsOf(seen.text)).not.toContain('/dashboard/workspace/readers/erase');
    const refused = await member.post('/dashboard/workspace/readers/erase', {
      email: 'ann.reader@example.org',
      confirm: 'yes',
    });
    expect(refused.status).toBe(403);
    expect((await linkOf(link.id)).readers).toBe(1);

    const workspace = await owner.get('/dashboard/workspace');
    expect(formActionsOf(workspace.text)).toContain('/dashboard/workspace/readers/erase');
    const wrong = await owner.post('/dashboard/workspace/readers/erase', { email: 'nobody' });
    expect(wrong.status).toBe(400);
    expect(alertsOf(wrong.text).join(' ')).toMatch(/not an email address/);
    // The first step asks, and erases nothing.
    const asked = await owner.post('/dashboard/workspace/readers/erase', {
      email: 'ANN.READER@example.org',
    });
    expect(asked.status).toBe(200);
    expect(h1Of(asked.text)).toBe('Erase the reader ANN.READER@example.org?');
    expect(formActionsOf(asked.text)).toEqual(['/logout', '/dashboard/workspace/readers/erase']);
    expect(asked.text).toContain('<input type="hidden" name="confirm" value="yes">');
    expect(rowsOf((await owner.get(`${links()}/${link.id}`)).text, 'Ann.Reader')).toHaveLength(1);

    const erased = await owner.post('/dashboard/workspace/readers/erase', {
      email: 'ANN.READER@example.org',
      confirm: 'yes',
    });
    expect(erased.status).toBe(200);
    expect(erased.url).toBe(`${app.base}/dashboard/workspace?erased=1#privacy`);
    expect(statusesOf(erased.text).join(' ')).toMatch(/^Erased 1 record:/);
    const after = await owner.get(`${links()}/${link.id}`);
    expect(rowsOf(after.text, 'Ann.Reader')).toHaveLength(0);
    expect(after.text).toContain('No one has given an address at this link yet.');
    // A reload says nothing again; an address no one gave: 0, in words.
    expect(statusesOf((await owner.get('/dashboard/workspace?erased=1')).text)).toEqual([]);
    const none = await owner.post('/dashboard/workspace/readers/erase', {
      email: 'ann.reader@example.org',
      confirm: 'yes',
    });
    expect(statusesOf(none.text).join(' ')).toMatch(/^Erased 0 records:/);
    const trail = await d().auditLog();
    expect(trail.filter((e) => e.type === 'ReaderErased').map((e) => e.data.readers)).toEqual([
      1, 0,
    ]);
    expect(JSON.stringify(trail)).not.toMatch(/ann\.reader/i);
  });

  it('says so when mail is failing, with the mail server’s last answer', async () => {
    const now = app.clock.now();
    await app.store.pool.query(
      `INSERT INTO mail_outbox (mail_id, kind, recipient, created_at, next_at, attempts,
         last_attempt_at, last_code, last_error)
       VALUES ($1, 'link_opened', 'owner@example.com', $2, $2, 1, $2, 550, '5.7.1 Relaying denied')`,
      [randomUUID(), now],
    );
    for (const path of [links(), `${links()}/${(await newest()).id}`]) {
      const page = await owner.get(path);
      expect(alertsOf(page.text).join(' '), path).toContain(
        'Mail is failing. Codes for readers and mails about your links are not going out. 1 mail waits.',
      );
      expect(page.text).toContain('code 550 (5.7.1 Relaying denied)');
    }
    await app.store.pool.query('DELETE FROM mail_outbox');
    expect((await owner.get(links())).text).not.toContain('Mail is failing');
  });

  it('pages a link’s readers a hundred at a time; the CSV has them all', async () => {
    const made = await owner.post(links(), { ...LINK_FORM, label: 'Big class', identify: 'email' });
    const url = shownUrl(made.text);
    const link = await newest();
    const page = `${links()}/${link.id}`;
    // 120 readers from this one address: 50 every 15 minutes (src/app/readerAdmission.ts).
    for (let i = 0; i < 120; i++) {
      if (i > 0 && i % 50 === 0) app.clock.advance(15 * 60_000 + 1);
      await identify(url, `reader${String(i).padStart(3, '0')}@example.org`);
    }
    const first = await owner.get(page);
    expect(first.text).toContain(
      '120 readers, most recently opened first: 1 to 100 shown (page 1 of 2).',
    );
    expect(first.text.match(/<td data-label="Email">/g)).toHaveLength(100);
    // None has opened it yet: the most recently identified first (the clock moved between the
    // three groups of 50, 50 and 20)
    const emails = (text: string) =>
      [...text.matchAll(/reader(\d{3})@example\.org/g)].map((m) => Number(m[1]));
    expect(new Set(emails(first.text).slice(0, 20))).toEqual(
      new Set(Array.from({ length: 20 }, (_, i) => 100 + i)),
    );
    expect(textOf(/<nav class="pager"[^>]*>([\s\S]*?)<\/nav>/.exec(first.text)?.[1] ?? '')).toBe(
      'Page 1 of 2 Earlier',
    );
    expect(first.text).toContain(`href="${page}?readers=2#readers-title"`);
    const second = await owner.get(`${page}?readers=2`);
    expect(second.text).toContain('120 readers, most recently opened first: 101 to 120 shown');
    expect(second.text.match(/<td data-label="Email">/g)).toHaveLength(20);
    expect(emails(second.text).every((n) => n < 50)).toBe(true);
    expect(textOf(/<nav class="pager"[^>]*>([\s\S]*?)<\/nav>/.exec(second.text)?.[1] ?? '')).toBe(
      'More recent Page 2 of 2',
    );
    // Not a page number: the first; past the last page: the last.
    for (const [asked, shown] of Object.entries({ '0': 1, x: 1, '-2': 1, '3': 2, '1e3': 2 })) {
      const answer = await owner.get(`${page}?readers=${asked}`);
      expect(answer.status).toBe(200);
      expect([asked, answer.text.includes(`<span>Page ${shown} of 2</span>`)]).toEqual([
        asked,
        true,
      ]);
    }
    const csv = await owner.get(`${page}/readers.csv`);
    expect(csv.text.trim().split('\r\n')).toHaveLength(121);
  });
});

describe('dashboard: who reads a share link, without a mail server', () => {
  const app = useApp();
  const d = () => dashboardOf(app);

  it('shows the code and the mail disabled, saying why, and refuses them in words', async () => {
    const owner = await d().signedIn('solo@example.com');
    const { flipbookId } = await createFlipbook(app.c, { title: 'No mail here' });
    const links = `/dashboard/flipbooks/${flipbookId}/links`;
    const page = await owner.get(links);
    expect(inputOf(page.text, 'identify', 'verified_email')).toContain('disabled');
    expect(inputOf(page.text, 'identify', 'email')).not.toContain('disabled');
    expect(inputOf(page.text, 'notify', 'true')).toContain('disabled');
    expect(textOf(page.text)).toContain(
      'Mailing a code and mailing you need a mail server, and this service has none: its operator starts it with --smtp-url.',
    );
    // Sent all the same (a hand-made form): refused in words, nothing made.
    const refused = await owner.post(links, { ...LINK_FORM, identify: 'verified_email' });
    expect(refused.status).toBe(422);
    expect(alertsOf(refused.text).join(' ')).toMatch(
      /^Confirming the address with a mailed code needs mail, and this service has no mail server: its operator starts it with --smtp-url$/,
    );
    expect(inputOf(refused.text, 'identify', 'verified_email')).toContain('checked');
    expect((await app.c.get(`/flipbooks/${flipbookId}/links`)).body.links).toEqual([]);
    // A notify the page could not send is no notify: the link is made without it.
    const made = await owner.post(links, { ...LINK_FORM, identify: 'email', notify: 'true' });
    expect(made.status).toBe(200);
    const [link] = (await app.c.get(`/flipbooks/${flipbookId}/links`)).body.links;
    expect(link).toMatchObject({ identify: 'email', notify: false });
    // Its page: the same, and no mail notice (no mail server, nothing fails).
    const own = await owner.get(`${links}/${link.id}`);
    expect(inputOf(own.text, 'notify', 'true')).toContain('disabled');
    expect(own.text).not.toContain('Mail is failing');
  });
});
