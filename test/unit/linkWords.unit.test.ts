// A share link and its readers in the CLI's words (packages/cli/src/linkWords.ts): what a link
// asks of readers as `share create`/`edit` say it and `share list` shows it, the table of `share
// readers` with its times read, and what `reader forget` says it did.
import { describe, expect, it } from 'vitest';
import {
  erasedWords,
  linkAsks,
  linkAsksColumn,
  linkSummary,
  READER_COLUMNS,
  readerRows,
} from '../../packages/cli/src/linkWords.ts';
import { duration } from '../../packages/cli/src/output.ts';
import type { LinkReader } from '../../src/contract/readers.ts';
import type { ShareLink } from '../../src/contract/shareLinks.ts';

const LINK: ShareLink = {
  id: '6f1c1d2e-0000-4000-8000-000000000001',
  flipbook_id: '6f1c1d2e-0000-4000-8000-000000000002',
  label: 'Jane, Acme',
  expires_at: null,
  expired: false,
  has_password: false,
  allow_download: true,
  opens: 0,
  last_opened_on: null,
  created_at: '2026-03-04T05:06:07.000Z',
  identify: 'none',
  terms: null,
  allow: [],
  watermark: false,
  notify: false,
  readers: 0,
  allow_limited: false,
};

const READER: LinkReader = {
  email: 'jane@acme.example',
  verified: true,
  identified_at: '2026-03-04T05:06:07.000Z',
  terms_accepted_at: '2026-03-04T05:06:07.000Z',
  first_opened_at: '2026-03-04T05:06:08.000Z',
  last_opened_at: '2026-03-05T09:00:00.000Z',
  opens: 3,
  read_seconds: 754,
  pages_seen: 12,
  page_count: 40,
  last_page: 17,
  completed: false,
  downloads: 1,
};

describe('what a link asks of its readers', () => {
  it('nothing: no sentence, `-` in the list', () => {
    expect(linkAsks(LINK)).toBe('');
    expect(linkAsksColumn(LINK)).toBe('-');
    expect(linkSummary(LINK)).toBe(`Share link ${LINK.id} for Jane, Acme.\n`);
  });

  it('everything: one sentence; the list names each', () => {
    const asking: ShareLink = {
      ...LINK,
      identify: 'verified_email',
      terms: 'Confidential.',
      allow: ['jane@acme.example', 'acme.example'],
      watermark: true,
      notify: true,
      expires_at: '2027-01-31T17:00:00.000Z',
      has_password: true,
      allow_download: false,
    };
    expect(linkAsks(asking)).toBe(
      "Readers give their address and the code mailed to it and accept its terms first; only jane@acme.example, acme.example may read; every page shows the reader's address; its creator is mailed when they read.",
    );
    expect(linkAsksColumn(asking)).toBe('verified_email, terms, allow 2, watermark, notify');
    expect(linkSummary(asking).split('\n')[0]).toBe(
      `Share link ${LINK.id} for Jane, Acme, until 2027-01-31T17:00:00.000Z, with a password, no download.`,
    );
  });

  it('a long allow list is counted; terms alone ask no address', () => {
    const allow = ['a.example', 'b.example', 'c.example', 'd.example'];
    expect(linkAsks({ ...LINK, identify: 'email', allow })).toBe(
      'Readers give their address first; only 4 addresses or domains may read.',
    );
    expect(linkAsks({ ...LINK, terms: 'Be kind.' })).toBe('Readers accept its terms first.');
    expect(linkAsksColumn({ ...LINK, terms: 'Be kind.' })).toBe('terms');
  });

  it('what the server sends is made safe for a terminal', () => {
    expect(linkAsks({ ...LINK, identify: 'email', allow: ['x\u001b[2J.example'] })).toBe(
      'Readers give their address first; only x\\u{1b}[2J.example may read.',
    );
  });
});

describe('share readers’ table', () => {
  it('one row a reader: yes/no, the time read for people, pages seen of all', () => {
    expect(readerRows([READER])).toEqual([
      {
        email: 'jane@acme.example',
        verified: 'yes',
        opens: 3,
        read: '12 min 34 s',
        'pages seen': '12/40',
        'last page': 17,
        completed: 'no',
        downloads: 1,
        'last opened': '2026-03-05T09:00:00.000Z',
      },
    ]);
    expect(Object.keys(readerRows([READER])[0] ?? {})).toEqual(READER_COLUMNS);
  });

  it('a reader who gave their address but has not opened it yet', () => {
    const waiting: LinkReader = {
      ...READER,
      verified: false,
      first_opened_at: null,
      last_opened_at: null,
      opens: 0,
      read_seconds: 0,
      pages_seen: 0,
      page_count: null,
      last_page: null,
      downloads: 0,
    };
    expect(readerRows([waiting])[0]).toMatchObject({
      verified: 'no',
      read: '0 s',
      'pages seen': '0/-',
      'last page': null,
      'last opened': 'never',
    });
  });

  it('times read: seconds, minutes and seconds, hours', () => {
    expect(duration(0)).toBe('0 s');
    expect(duration(59.4)).toBe('59 s');
    expect(duration(60)).toBe('1 min 0 s');
    expect(duration(3599)).toBe('59 min 59 s');
    expect(duration(5400)).toBe('1.5 h');
  });
});

describe('reader forget, in words', () => {
  it('says how many records lost the address', () => {
    expect(erasedWords(0)).toMatch(/^Erased 0 reader records: no link of this workspace knew/);
    expect(erasedWords(1)).toMatch(/^Erased 1 reader record: the address is gone/);
    expect(erasedWords(3)).toMatch(/^Erased 3 reader records: /);
  });
});
