// Who may read a flipbook, decided on its stream: visibility, the sites that may frame it, and
// share links (created, changed, revoked), rule by rule; the embed origins' parser; reading
// grants (signed, expiring, tamper-evident).
import { describe, expect, it } from 'vitest';
import { grantsSignedWith } from '../../src/app/readingGrants.ts';
import { InvalidInput, NotFound, RuleBroken } from '../../src/domain/errors.ts';
import { embedOrigin, frameAncestors } from '../../src/domain/flipbook/access.ts';
import { decide } from '../../src/domain/flipbook/decide.ts';
import { evolve, type FlipbookEvent, initialState } from '../../src/domain/flipbook/flipbook.ts';
import {
  linkPassword,
  MAX_LINKS,
  type ShareLinkCreated,
} from '../../src/domain/flipbook/shareLinks.ts';
import { publicEvent } from '../../src/domain/publicEvents.ts';
import { loggedUrl } from '../../src/http/loggedUrl.ts';
import { deciderSpec } from '../support/deciderSpec.ts';

const given = deciderSpec({ decide, evolve, initialState });

/** A UUID of one repeated digit: 1111...-1111-4111-8111-..., easy to tell apart in a failure. */
const uuidOf = (d: string) =>
  `${d.repeat(8)}-${d.repeat(4)}-4${d.repeat(3)}-8${d.repeat(3)}-${d.repeat(12)}`;
const [FLIPBOOK_ID, WORKSPACE_ID, LINK, OTHER, PASSWORD_ID] = ['b', 'a', '1', '2', '3'].map(
  uuidOf,
) as [string, string, string, string, string];
const NOW = new Date('2025-03-02T14:15:16.789Z');
const book = { flipbookId: FLIPBOOK_ID, workspaceId: WORKSPACE_ID };
const at = { ...book, occurredAt: NOW.toISOString() };
const past = { ...book, occurredAt: '2025-03-01T09:00:00.000Z' };

const created = (visibility?: 'workspace' | 'links'): FlipbookEvent => ({
  type: 'FlipbookCreated',
  data: {
    ...past,
    title: 'Board pack',
    slug: 'board-pack',
    description: '',
    titleFromFile: false,
    ...(visibility ? { visibility } : {}),
  },
});
const linkMade = (linkId = LINK, extra: Partial<ShareLinkCreated['data']> = {}): FlipbookEvent => ({
  type: 'ShareLinkCreated',
  data: {
    ...past,
    linkId,
    label: 'Jane',
    tokenHash: 'ab'.repeat(32),
    expiresAt: null,
    passwordId: null,
    allowDownload: true,
    ...extra,
  },
});
const edit = (data: Record<string, unknown>) =>
  ({ type: 'EditFlipbook', data: { ...data, now: NOW } }) as const;

describe('visibility and embeds', () => {
  it('records a change of visibility, once', () => {
    given([created()])
      .when(edit({ visibility: 'links' }))
      .then([{ type: 'FlipbookVisibilityChanged', data: { ...at, visibility: 'links' } }]);
    given([created('links')])
      .when(edit({ visibility: 'links' }))
      .then([]);
  });

  it('reads a FlipbookCreated from before visibility as public', () => {
    given([created()])
      .when(edit({ visibility: 'public' }))
      .then([]);
  });

  it('records the embed origins, cleaned, only when they change', () => {
    given([created()])
      .when(edit({ embedOrigins: ['HTTPS://Example.com/', 'https://example.com'] }))
      .then([{ type: 'FlipbookEmbedsChanged', data: { ...at, origins: ['https://example.com'] } }]);
    given([
      created(),
      { type: 'FlipbookEmbedsChanged', data: { ...past, origins: ['https://example.com'] } },
    ])
      .when(edit({ embedOrigins: ['https://example.com'] }))
      .then([]);
  });

  it('refuses an origin a header could be widened or split with', () => {
    for (const bad of [
      'example.com',
      'https://example.com/path',
      'https://a.com https://b.com',
      "https://a.com; script-src 'unsafe-inline'",
      'javascript:alert(1)',
      'https://exa mple.com',
      'https://-bad.com',
      'https://a.com:99999',
      '*',
      'https://*.com',
      `https://${'a'.repeat(300)}.com`,
    ]) {
      expect(() => embedOrigin(bad), bad).toThrow(InvalidInput);
    }
    expect(embedOrigin('https://*.Example.com:8443')).toBe('https://*.example.com:8443');
  });

  it('frames a public book anywhere by default, a private one nowhere but here', () => {
    expect(frameAncestors({ visibility: 'public', embedOrigins: [] })).toBe('frame-ancestors *');
    expect(frameAncestors({ visibility: 'links', embedOrigins: [] })).toBe(
      "frame-ancestors 'self'",
    );
    expect(frameAncestors({ visibility: 'public', embedOrigins: ['https://a.com'] })).toBe(
      "frame-ancestors 'self' https://a.com",
    );
  });
});

describe('share links', () => {
  const create = (data: Record<string, unknown> = {}) =>
    ({
      type: 'CreateShareLink',
      data: { linkId: LINK, label: 'Jane', tokenHash: 'ab'.repeat(32), now: NOW, ...data },
    }) as const;

  it('creates a link with its defaults: no expiry, no password, downloads as the book', () => {
    given([created('links')])
      .when(create({ label: '  Jane Doe, Acme  ' }))
      .then([
        {
          type: 'ShareLinkCreated',
          data: {
            ...at,
            linkId: LINK,
            label: 'Jane Doe, Acme',
            tokenHash: 'ab'.repeat(32),
            expiresAt: null,
            passwordId: null,
            allowDownload: true,
          },
        },
      ]);
  });

  it('refuses a blank, over-long or hostile label, and an expiry in the past or too far', () => {
    const refused = (data: Record<string, unknown>) =>
      given([created()])
        .when(create(data))
        .thenThrows((e) => e instanceof InvalidInput);
    refused({ label: '   ' });
    refused({ label: 'x'.repeat(201) });
    refused({ label: 'Jane\u202eenaJ' });
    refused({ label: 'Jane\u0007' });
    refused({ expiresAt: new Date(NOW.getTime() - 1000) });
    refused({ expiresAt: new Date('2040-01-01T00:00:00Z') });
  });

  it(`keeps at most ${MAX_LINKS} live links; a revoked one frees its place`, () => {
    const many = Array.from({ length: MAX_LINKS }, (_, i) =>
      linkMade(`${String(i).padStart(8, '0')}-1111-4111-8111-111111111111`),
    );
    given([created(), ...many])
      .when(create({ linkId: OTHER }))
      .thenThrows((e) => e instanceof RuleBroken);
    const revoked: FlipbookEvent = {
      type: 'ShareLinkRevoked',
      data: { ...past, linkId: '00000000-1111-4111-8111-111111111111' },
    };
    expect(
      decide(
        create({ linkId: OTHER }),
        [created(), ...many, revoked].reduce(evolve, initialState()),
      ),
    ).toHaveLength(1);
  });

  it('records only what changed; a new password is always a change; null removes it', () => {
    given([created(), linkMade()])
      .when({
        type: 'EditShareLink',
        data: {
          linkId: LINK,
          label: 'Jane',
          passwordId: PASSWORD_ID,
          allowDownload: false,
          now: NOW,
        },
      })
      .then([
        {
          type: 'ShareLinkEdited',
          data: { ...at, linkId: LINK, passwordId: PASSWORD_ID, allowDownload: false },
        },
      ]);
    given([created(), linkMade()])
      .when({ type: 'EditShareLink', data: { linkId: LINK, passwordId: null, now: NOW } })
      .then([]);
    given([created(), linkMade(LINK, { passwordId: PASSWORD_ID })])
      .when({ type: 'EditShareLink', data: { linkId: LINK, passwordId: null, now: NOW } })
      .then([{ type: 'ShareLinkEdited', data: { ...at, linkId: LINK, passwordId: null } }]);
  });

  it('revokes a link once; a revoked or unknown link is not found, also for changes', () => {
    const revoked: FlipbookEvent = { type: 'ShareLinkRevoked', data: { ...past, linkId: LINK } };
    given([created(), linkMade()])
      .when({ type: 'RevokeShareLink', data: { linkId: LINK, now: NOW } })
      .then([{ type: 'ShareLinkRevoked', data: { ...at, linkId: LINK } }]);
    for (const command of [
      { type: 'RevokeShareLink', data: { linkId: LINK, now: NOW } },
      { type: 'EditShareLink', data: { linkId: LINK, label: 'x', now: NOW } },
    ] as const) {
      given([created(), linkMade(), revoked])
        .when(command)
        .thenThrows((e) => e instanceof NotFound);
    }
    given([created()])
      .when({ type: 'RevokeShareLink', data: { linkId: OTHER, now: NOW } })
      .thenThrows((e) => e instanceof NotFound);
  });

  it('publishes links without their token hash or password id', () => {
    const made = linkMade(LINK, { passwordId: PASSWORD_ID });
    const face = publicEvent(made.type, made.data as Record<string, unknown>);
    expect(face).toEqual({
      type: 'share_link.created',
      data: {
        flipbook_id: FLIPBOOK_ID,
        link_id: LINK,
        label: 'Jane',
        expires_at: null,
        allow_download: true,
        has_password: true,
      },
    });
  });
});

describe('reading grants', () => {
  const grants = grantsSignedWith('a secret of this installation');
  const grant = {
    kind: 'link' as const,
    holder: LINK,
    flipbookId: FLIPBOOK_ID,
    expires: 2_000_000_000,
    key: null,
    reader: null,
  };

  it('reads back what it signed, until it expires', () => {
    const text = grants.sign(grant);
    expect(grants.read(text, NOW)).toEqual(grant);
    const keyed = { ...grant, key: OTHER, reader: null };
    expect(grants.read(grants.sign(keyed), NOW)).toEqual(keyed);
    expect(grants.read(text, new Date(2_000_000_000 * 1000))).toBeNull();
  });

  it('refuses one tampered with, or signed under another secret', () => {
    const text = grants.sign(grant);
    const swapped = text.replace(FLIPBOOK_ID, OTHER);
    expect(grants.read(swapped, NOW)).toBeNull();
    expect(grants.read(text.replace(/^l/, 'm'), NOW)).toBeNull();
    expect(grants.read(`${text.slice(0, -1)}A`, NOW)).toBeNull();
    expect(grantsSignedWith('another secret').read(text, NOW)).toBeNull();
    // the password it names cannot be dropped or swapped
    const keyed = grants.sign({ ...grant, key: OTHER, reader: null });
    const [mac] = keyed.split('.').slice(-1);
    expect(grants.read(`${text.split('.').slice(0, 4).join('.')}.${mac}`, NOW)).toBeNull();
    expect(grants.read(keyed.replace(OTHER, LINK), NOW)).toBeNull();
    for (const junk of ['', 'a.b.c.d.e', `${text}.x`, 'l'.repeat(500)]) {
      expect(grants.read(junk, NOW)).toBeNull();
    }
  });
});

describe('URLs in logs', () => {
  it.each([
    ['/s/abcDEF123/status.json', '/s/[redacted]/status.json'],
    ['/a/l.x.y.1.mac/pages/v/1/mid.jpg', '/a/[redacted]/pages/v/1/mid.jpg'],
    ['/invite/tok?x=1', '/invite/[redacted]?x=1'],
    ['/login/sso/callback?code=c&state=s', '/login/sso/callback?[redacted]'],
    ['/f/123/text?q=hello', '/f/123/text?q=hello'],
    [undefined, ''],
  ])(
    'leave out share-link tokens, grants, invitation tokens and the sign-on code: %s',
    (url, logged) => {
      expect(loggedUrl(url)).toBe(logged);
    },
  );
});

describe('link passwords', () => {
  it('are 8 to 256 characters a reader can type, whichever way they come', () => {
    expect(linkPassword('correct horse 9')).toBe('correct horse 9');
    expect(linkPassword('p'.repeat(256))).toBe('p'.repeat(256));
    expect(linkPassword('密码密码密码密码')).toBe('密码密码密码密码');
    for (const bad of [
      'short',
      'p'.repeat(257),
      '          ',
      'a\u0000bcdefghij',
      'line\nbreak1',
      'tab\there12',
      '\u200b'.repeat(8),
      '\ud800abcdefgh',
      'abc\u2028defgh',
      'abc\u202edefgh',
    ]) {
      expect(() => linkPassword(bad), JSON.stringify(bad)).toThrow(InvalidInput);
    }
  });
});
