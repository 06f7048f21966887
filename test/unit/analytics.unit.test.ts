// Reader analytics (issue 30), the pure parts: what a beacon may say, the device class kept of
// a user agent, the referring host kept of a referrer.
import { describe, expect, it } from 'vitest';
import { counted, readerOf } from '../../src/app/analytics/readers.ts';
import { readingTokensSignedWith } from '../../src/app/analytics/readingTokens.ts';
import { grantsSignedWith } from '../../src/app/readingGrants.ts';
import {
  MAX_BEACON_BYTES,
  MAX_EVENTS,
  type ReadingEvent,
  readBeacon,
} from '../../src/domain/analytics/beacon.ts';
import { deviceClass } from '../../src/domain/analytics/device.ts';
import { referrerHost } from '../../src/domain/analytics/referrer.ts';
import { senderKey } from '../../src/domain/analytics/senderKey.ts';
import { InvalidInput } from '../../src/domain/errors.ts';

const beacon = (fields: Record<string, unknown>) =>
  JSON.stringify({ v: 1, t: 'token', e: [{ k: 'open' }], ...fields });

describe('a beacon', () => {
  it('reads what a reader did, bounded', () => {
    // each event as sent, and as read
    const events: [Record<string, unknown>, ReadingEvent][] = [
      [{ k: 'open' }, { kind: 'open' }],
      [
        { k: 'page', p: 3, s: 12.57 },
        { kind: 'page', position: 3, seconds: 12.5, more: false, beside: false },
      ],
      [
        { k: 'page', p: 3, s: 2, m: 1, b: 1 },
        { kind: 'page', position: 3, seconds: 2, more: true, beside: true },
      ],
      [
        { k: 'page', p: 4, s: 99_999 },
        { kind: 'page', position: 4, seconds: 1800, more: false, beside: false },
      ],
      [
        { k: 'link', p: 3, l: 0 },
        { kind: 'link', position: 3, link: 0 },
      ],
      [{ k: 'search' }, { kind: 'search' }],
      [{ k: 'download' }, { kind: 'download' }],
      [{ k: 'zoom' }, { kind: 'zoom' }],
    ];
    const sent = beacon({
      e: events.map(([raw]) => raw),
      r: 'https://news.example.com/a?b',
      tc: 1,
    });
    expect(readBeacon(sent)).toEqual({
      token: 'token',
      events: events.map(([, read]) => read),
      referrer: 'https://news.example.com/a?b',
      touch: true,
    });
  });

  it('refuses anything else, saying what', () => {
    const refused = [
      'not json',
      '[]',
      'null',
      JSON.stringify({ v: 2, t: 'x', e: [{ k: 'open' }] }),
      beacon({ t: '' }),
      beacon({ t: 'x'.repeat(513) }),
      beacon({ e: [] }),
      beacon({ e: Array.from({ length: MAX_EVENTS + 1 }, () => ({ k: 'open' })) }),
      beacon({ e: [{ k: 'scroll' }] }),
      beacon({ e: [null] }),
      beacon({ e: [{ k: 'page', p: 0, s: 1 }] }),
      beacon({ e: [{ k: 'page', p: 1.5, s: 1 }] }),
      beacon({ e: [{ k: 'page', p: '1', s: 1 }] }),
      beacon({ e: [{ k: 'page', p: 1, s: -1 }] }),
      beacon({ e: [{ k: 'page', p: 1, s: 'NaN' }] }),
      beacon({ e: [{ k: 'link', p: 1, l: -1 }] }),
      beacon({ e: [{ k: 'link', p: 1, l: 10_000 }] }),
      beacon({ r: 42 }),
      beacon({ r: 'x'.repeat(MAX_BEACON_BYTES) }),
    ];
    for (const body of refused) {
      expect(() => readBeacon(body), body.slice(0, 80)).toThrow(InvalidInput);
    }
    expect(() => readBeacon(beacon({ e: [{ k: 'scroll' }] }))).toThrow(
      'Invalid beacon: unknown kind of event',
    );
  });
});

describe('the device class of a user agent', () => {
  const cases: [string, string, string?, boolean?][] = [
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1',
      'phone',
    ],
    [
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Mobile Safari/537.36',
      'phone',
    ],
    [
      'Mozilla/5.0 (Linux; Android 13; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36',
      'tablet',
    ],
    [
      'Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
      'tablet',
    ],
    // iPadOS asks for the desktop site: a Mac that takes several touches
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15',
      'tablet',
      undefined,
      true,
    ],
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15',
      'desktop',
    ],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36',
      'desktop',
    ],
    // Chromium's client hint says phone whatever the user agent (reduced) says
    [
      'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36',
      'phone',
      '?1',
    ],
    ['', 'desktop'],
  ];
  it.each(cases)('%s → %s', (ua, device, hint, touch) => {
    expect(deviceClass(ua, hint, touch)).toBe(device);
  });
});

describe('the referring host', () => {
  it('keeps the host only, and nothing for direct visits or this service', () => {
    const own = ['flipbooks.example.com'];
    expect(referrerHost('https://www.News.Example.com./path?q=secret#x', own)).toBe(
      'news.example.com',
    );
    expect(referrerHost('http://blog.example.org/', own)).toBe('blog.example.org');
    for (const none of [
      null,
      undefined,
      '',
      'not a url',
      'android-app://com.slack/',
      'javascript:alert(1)',
      'https://flipbooks.example.com/f/123',
      'https://www.flipbooks.example.com/',
      'http://localhost:3000/',
      `https://${'a'.repeat(5000)}.com/`,
    ]) {
      expect(referrerHost(none, own), String(none).slice(0, 40)).toBeNull();
    }
  });
});

describe('readers, without knowing who', () => {
  const chrome =
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36';
  const plain = { userAgent: chrome, doNotTrack: undefined, globalPrivacyControl: undefined };

  it('counts browsers, not robots nor readers who asked not to be followed', () => {
    expect(counted(plain)).toBe(true);
    expect(counted({ ...plain, doNotTrack: '0' })).toBe(true);
    expect(counted({ ...plain, doNotTrack: '1' })).toBe(false);
    expect(counted({ ...plain, globalPrivacyControl: '1' })).toBe(false);
    expect(counted({ ...plain, userAgent: undefined })).toBe(false);
    expect(counted({ ...plain, userAgent: '' })).toBe(false);
    expect(
      counted({ ...plain, userAgent: 'Googlebot/2.1 (+http://www.google.com/bot.html)' }),
    ).toBe(false);
    expect(counted({ ...plain, userAgent: 'curl/8.5.0' })).toBe(false);
    // headless browsers are robots too (tests give their browser an ordinary user agent)
    expect(counted({ ...plain, userAgent: chrome.replace('Chrome/', 'HeadlessChrome/') })).toBe(
      false,
    );
  });

  it('is one reader per day, flipbook, address and browser, and nothing else', () => {
    const today = Buffer.alloc(32, 1);
    const tomorrow = Buffer.alloc(32, 2);
    const one = readerOf(today, '192.0.2.1', chrome, 'book-a');
    expect(one).toMatch(/^[0-9a-f]{32}$/);
    expect(readerOf(today, '::ffff:192.0.2.1', chrome, 'book-a')).toBe(one);
    for (const other of [
      readerOf(tomorrow, '192.0.2.1', chrome, 'book-a'),
      readerOf(today, '192.0.2.2', chrome, 'book-a'),
      readerOf(today, '192.0.2.1', `${chrome} Edg/130.0`, 'book-a'),
      readerOf(today, '192.0.2.1', chrome, 'book-b'),
      // the inputs do not run into each other
      readerOf(today, '192.0.2.1\u0000x', chrome, 'book-a'),
    ]) {
      expect(other).not.toBe(one);
    }
  });
});

describe('reading tokens', () => {
  const tokens = readingTokensSignedWith('a secret of this installation');
  const token = {
    flipbookId: '3df4228e-437a-4f1c-b162-a57a57a87f40',
    versionId: '6f0a1c2e-0b1d-4f6a-9c3e-2a7b8c9d0e1f',
    linkId: null,
    pages: 12,
    expires: 2_000_000_000,
  };
  const NOW = new Date('2026-11-28T12:00:00Z');

  it('names what the beacons count for, until it expires', () => {
    const text = tokens.sign(token);
    expect(tokens.read(text, NOW)).toEqual({ ...token, readerId: null });
    const linked = { ...token, linkId: '0a7b8c9d-0e1f-4f6a-9c3e-2a7b8c9d0e1f', readerId: null };
    expect(tokens.read(tokens.sign(linked), NOW)).toEqual(linked);
    // an identified reader's (issue 44): their own figures are counted by it
    const identified = { ...linked, readerId: '1b8c9d0e-1f2a-4b3c-8d4e-3b8c9d0e1f2a' };
    expect(tokens.read(tokens.sign(identified), NOW)).toEqual(identified);
    expect(tokens.read(text, new Date(2_000_000_000_000))).toBeNull();
  });

  it('cannot be moved to another flipbook, forged, or taken for a reading grant', () => {
    const text = tokens.sign(token);
    expect(tokens.read(text.replace(token.flipbookId, token.versionId), NOW)).toBeNull();
    expect(tokens.read(text.replace('.12.', '.13.'), NOW)).toBeNull();
    expect(readingTokensSignedWith('another secret').read(text, NOW)).toBeNull();
    const grant = grantsSignedWith('a secret of this installation').sign({
      kind: 'link',
      holder: token.versionId,
      flipbookId: token.flipbookId,
      expires: 2_000_000_000,
      key: null,
      reader: null,
    });
    expect(tokens.read(grant, NOW)).toBeNull();
    expect(grantsSignedWith('a secret of this installation').read(text, NOW)).toBeNull();
    for (const junk of ['', 'r', 'r.a.b.c.d.e.f', 'x'.repeat(400)]) {
      expect(tokens.read(junk, NOW)).toBeNull();
    }
  });
});

describe('a beacon sender, for its limit', () => {
  it.each([
    ['192.0.2.7', '192.0.2.7'],
    ['::ffff:192.0.2.7', '192.0.2.7'],
    ['2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::5', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002::ffff', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
  ])('is an IPv4 address, or an IPv6 address’s /64: %s as %s', (address, key) => {
    expect(senderKey(address)).toBe(key);
  });
});
