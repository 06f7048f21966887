// Who reads, from the CLI as a user runs it (issue 44): `share create` with --identify,
// --terms-file, --allow and --watermark, `share edit`, `share readers` (table, --json, --csv) and
// `reader forget`, against a real daemon without a mail server (verified_email is refused in
// words). A reader identifies through the link's own form (POST /s/<token>), as a browser would,
// and is listed. `share readers --csv` and `reader forget` also run from the built client package
// on the machine's Node 20. The answers' rules are test/spec's, in process; here, the command.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClient } from '../../packages/cli/build.ts';
import type { LinkReaderList } from '../../src/contract/readers.ts';
import type { CreatedShareLink, ShareLink } from '../../src/contract/shareLinks.ts';
import { createFlipbook } from '../support/apiHelpers.ts';
import { type CliResult, flipbook } from '../support/cli.ts';
import { run, systemNode } from '../support/clientInstall.ts';
import { useApi } from '../support/useApi.ts';

const CSV_HEADER =
  /^email,verified,identified_at,terms_accepted_at,first_opened_at,last_opened_at,opens,read_seconds,pages_seen,page_count,last_page,completed,downloads\r\n/;

describe('who reads, from the CLI', { timeout: 120_000 }, () => {
  // No mail server, whatever the machine's environment says.
  const fx = useApi('embedded', ['--rate-limit', '0'], { FLIPBOOK_SMTP_URL: '' });
  let dir: string;
  let terms: string;
  let flipbookId: string;
  let link: CreatedShareLink;
  /** the client package as built for npm, on its way while the daemon starts */
  let built: Promise<string>;

  const env = () => ({
    XDG_CONFIG_HOME: dir,
    FLIPBOOK_URL: fx.daemon.url,
    FLIPBOOK_API_KEY: fx.key,
  });
  const cli = (args: string[]) => flipbook(args, env());
  /** The package a pipeline installs, on the machine's own Node (20 here and in CI). */
  const node20 = async (args: string[]) =>
    run(systemNode(), [join(await built, 'flipbook.mjs'), ...args], {
      ...env(),
      PATH: process.env.PATH,
    });
  const ok = (result: CliResult) => {
    if (result.code !== 0) throw new Error(`exit ${result.code}\n${result.stderr}${result.stdout}`);
    return result;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'flipbook-readers-cli-'));
    built = buildClient(join(dir, 'package', 'dist')).then(() => join(dir, 'package', 'dist'));
    terms = join(dir, 'terms.txt');
    await writeFile(terms, '\uFEFFConfidential.\r\nDo not share these pages.\r\n');
    flipbookId = (await createFlipbook(fx.c, { title: 'Board pack' })).flipbookId;
  }, 60_000);
  afterAll(async () => {
    await built?.catch(() => {});
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('share create --identify email --terms-file --allow --watermark: the link asks who reads', async () => {
    const made = ok(
      await cli([
        ...['share', 'create', flipbookId, 'Jane, Acme', '--identify', 'email'],
        ...['--terms-file', terms, '--allow', 'jane@acme.example,acme.example'],
        ...['--allow', 'bob@other.example', '--watermark', '--json'],
      ]),
    );
    link = JSON.parse(made.stdout) as CreatedShareLink;
    expect(link).toMatchObject({
      label: 'Jane, Acme',
      identify: 'email',
      terms: 'Confidential.\nDo not share these pages.',
      allow: ['jane@acme.example', 'acme.example', 'bob@other.example'],
      watermark: true,
      notify: false,
      readers: 0,
    });

    // In words: what it asks, then its URL; the list has a column for it.
    const told = ok(
      await cli([
        'share',
        'create',
        flipbookId,
        'Bob',
        '--identify',
        'email',
        '--allow',
        'x.example',
      ]),
    );
    expect(told.stdout).toMatch(
      /^Share link [0-9a-f-]{36} for Bob\.\nReaders give their address first; only x\.example may read\.\nIts URL, shown this once:\nhttp/,
    );
    const listed = ok(await cli(['share', 'list', flipbookId])).stdout;
    expect(listed.split('\n')[0]).toMatch(/ASKS\s+OPENS\s+READERS$/);
    expect(listed).toContain('email, terms, allow 3, watermark');
  });

  it('refuses in words: verified_email without a mail server (exit 1), bad flags before sending (exit 2)', async () => {
    const verified = await cli([
      'share',
      'create',
      flipbookId,
      'Carol',
      '--identify',
      'verified_email',
    ]);
    expect(verified.code).toBe(1);
    expect(verified.stderr).toBe(
      'flipbook: --identify verified_email (a code is mailed) needs mail, and this service has no mail server: its operator starts it with --smtp-url\n',
    );
    const [mode, watermarkAlone, badEntry] = await Promise.all([
      cli(['share', 'create', flipbookId, 'Dan', '--identify', 'sometimes']),
      cli(['share', 'create', flipbookId, 'Dan', '--watermark']),
      cli([
        'share',
        'create',
        flipbookId,
        'Dan',
        '--identify',
        'email',
        '--allow',
        'dan@localhost',
      ]),
    ]);
    expect(mode.stderr).toBe(
      'flipbook: --identify must be none, email or verified_email, got "sometimes"\n',
    );
    expect(watermarkAlone.stderr).toBe(
      "flipbook: --watermark needs the reader's address: add --identify email (or verified_email)\n",
    );
    expect(badEntry.stderr).toMatch(/^flipbook: --allow: "dan@localhost" is not an email address/);
    for (const refused of [mode, watermarkAlone, badEntry]) {
      expect(refused.code).toBe(2);
      expect(refused.stdout).toBe('');
    }
    // An edit the server refuses for what the link already is: in the flags' words too.
    const plain = JSON.parse(
      ok(await cli(['share', 'create', flipbookId, 'Eve', '--json'])).stdout,
    );
    const edit = await cli(['share', 'edit', flipbookId, plain.id, '--notify']);
    expect(edit.code).toBe(1);
    expect(edit.stderr).toMatch(/--notify/);
    expect(edit.stderr).not.toMatch(/\bidentify to\b/);
  });

  it('share readers on a link nobody identified at: the words, --json, the CSV header', async () => {
    const table = ok(await cli(['share', 'readers', flipbookId, link.id]));
    expect(table.stdout).toMatch(/^No reader has given their address at this link yet/);
    const json = ok(await cli(['share', 'readers', flipbookId, link.id, '--json']));
    expect(JSON.parse(json.stdout)).toEqual({ readers: [] });
    const csv = ok(await node20(['share', 'readers', flipbookId, link.id, '--csv']));
    expect(csv.stdout).toMatch(CSV_HEADER);
    expect(csv.stdout.split('\r\n')).toEqual([expect.any(String), '']);
  });

  it('a reader who gives their address at the link is listed; share edit changes what it asks', async () => {
    const token = new URL(link.url).pathname;
    const given = await fetch(`${fx.daemon.url}${token}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ step: 'email', email: 'Jane@Acme.example', accept: 'yes' }),
    });
    expect(given.status, await given.clone().text()).toBe(303);
    expect(given.headers.get('set-cookie')).toBeTruthy();

    const table = ok(await cli(['share', 'readers', flipbookId, link.id])).stdout.split('\n');
    expect(table[0]).toMatch(
      /^EMAIL\s+VERIFIED\s+OPENS\s+READ\s+PAGES SEEN\s+LAST PAGE\s+COMPLETED\s+DOWNLOADS\s+LAST OPENED$/,
    );
    expect(table[1]).toMatch(/^Jane@acme\.example\s+no\s+0\s+0 s\s+0\/-\s+-\s+no\s+0\s+never$/);
    const { readers } = JSON.parse(
      ok(await cli(['share', 'readers', flipbookId, link.id, '--json'])).stdout,
    ) as LinkReaderList;
    expect(readers).toMatchObject([{ email: 'Jane@acme.example', verified: false, opens: 0 }]);
    expect(readers[0]?.terms_accepted_at).not.toBeNull();
    const csv = ok(await cli(['share', 'readers', flipbookId, link.id, '--csv'])).stdout;
    expect(csv).toMatch(CSV_HEADER);
    expect(csv).toContain('\r\nJane@acme.example,false,');

    const edited = ok(
      await cli([
        ...['share', 'edit', flipbookId, link.id, '--no-allow', '--no-terms', '--no-watermark'],
        '--json',
      ]),
    );
    expect(JSON.parse(edited.stdout) as ShareLink).toMatchObject({
      id: link.id,
      identify: 'email',
      terms: null,
      allow: [],
      watermark: false,
      readers: 1,
    });
    const nothing = await cli(['share', 'edit', flipbookId, link.id]);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toMatch(/^flipbook: Nothing to change: give --label/);
  });

  it('reader forget: erases them (in words, --json), 0 for an unknown address; a bad address refused', async () => {
    const erased = ok(await cli(['reader', 'forget', 'jane@ACME.example']));
    expect(erased.stdout).toMatch(/^Erased 1 reader record: /);
    const readers = ok(await cli(['share', 'readers', flipbookId, link.id, '--json'])).stdout;
    expect(JSON.parse(readers)).toEqual({ readers: [] });

    const none = ok(await node20(['reader', 'forget', 'nobody@acme.example', '--json']));
    expect(JSON.parse(none.stdout)).toEqual({ erased: 0 });
    const words = ok(await cli(['reader', 'forget', 'nobody@acme.example']));
    expect(words.stdout).toMatch(/^Erased 0 reader records: no link of this workspace knew/);

    const bad = await node20(['reader', 'forget', 'not-an-address']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('flipbook: "not-an-address" is not an email address: it has no @\n');
    expect(bad.stdout).toBe('');
  });
});
