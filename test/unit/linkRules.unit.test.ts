// A share link's reader rules (issue 44), decided on its own: what a link may ask, what needs
// what, old links read as asking nothing, and an edit that changes nothing recorded as nothing.
import { describe, expect, it } from 'vitest';
import { InvalidInput } from '../../src/domain/errors.ts';
import {
  decideShareLinks,
  evolveShareLinks,
  type LinkHolder,
  linkState,
  NO_LINKS,
  type ShareLinkEvent,
} from '../../src/domain/flipbook/shareLinks.ts';
import { allowEntry, allowedBy, readerEmail } from '../../src/domain/readerEmail.ts';
import { FLIPBOOK_ID, NOW, WORKSPACE_ID } from '../support/domainFixtures.ts';

const LINK = '11111111-1111-4111-8111-111111111111';
const LIST = '22222222-2222-4222-8222-222222222222';

const holder = (events: ShareLinkEvent[]): LinkHolder => ({
  flipbookId: FLIPBOOK_ID,
  workspaceId: WORKSPACE_ID,
  links: events.reduce(evolveShareLinks, NO_LINKS),
});
const create = (more: Record<string, unknown> = {}) =>
  decideShareLinks(
    {
      type: 'CreateShareLink',
      data: { linkId: LINK, label: 'Jane', tokenHash: 'ab'.repeat(32), now: NOW, ...more },
    },
    holder([]),
  );

describe('share link reader rules', () => {
  it('writes nothing of the rules for a link that asks nothing: the shape of every older link', () => {
    const [created] = create();
    expect(created?.data).not.toHaveProperty('identify');
    expect(created?.data).not.toHaveProperty('watermark');
    expect(linkState(holder(create()).links, LINK)).toMatchObject({
      identify: 'none',
      terms: null,
      allowListId: null,
      watermark: false,
      notify: false,
    });
  });

  it('keeps what a link asks, its terms trimmed with line ends as \\n', () => {
    const events = create({
      identify: 'verified_email',
      terms: '  Confidential.\r\n\r\nNo forwarding.  ',
      allowListId: LIST,
      watermark: true,
      notify: true,
    });
    expect(events[0]?.data).toMatchObject({
      identify: 'verified_email',
      terms: 'Confidential.\n\nNo forwarding.',
      allowListId: LIST,
      watermark: true,
      notify: true,
    });
  });

  it('refuses a watermark, alerts or an allow list without an address to act on, in words', () => {
    expect(() => create({ watermark: true })).toThrow(
      new InvalidInput(
        'watermark needs the reader\'s address: set identify to "email" or "verified_email"',
      ),
    );
    expect(() => create({ notify: true, allowListId: LIST })).toThrow(/notify and allow need/);
    expect(() => create({ identify: 'email', terms: 'a\u0000b' })).toThrow(/Invalid terms/);
    expect(() => create({ identify: 'email', terms: 'x'.repeat(20_001) })).toThrow(/at most 20000/);
  });

  it('records an edit of the rules only when something changes, and refuses leaving a watermark without identify', () => {
    const given = create({ identify: 'email', watermark: true });
    const edit = (data: Record<string, unknown>) =>
      decideShareLinks(
        { type: 'EditShareLink', data: { linkId: LINK, now: NOW, ...data } },
        holder(given),
      );
    expect(edit({ identify: 'email', watermark: true })).toEqual([]);
    expect(edit({ terms: '' })).toEqual([]);
    expect(edit({ notify: true })[0]?.data).toMatchObject({ notify: true });
    expect(() => edit({ identify: 'none' })).toThrow(/watermark needs the reader's address/);
    expect(edit({ identify: 'none', watermark: false })[0]?.data).toMatchObject({
      identify: 'none',
      watermark: false,
    });
    // A new allow list is a change even if it holds the same entries (its own row).
    expect(edit({ allowListId: LIST })[0]?.data).toMatchObject({ allowListId: LIST });
    expect(edit({ allowListId: null })).toEqual([]);
  });
});

describe('allow lists', () => {
  it('takes addresses and domains (IDN, @domain, any case) and refuses the rest without repeating it', () => {
    expect(allowEntry('Bob@X.org')).toMatchObject({ kind: 'address' });
    expect(allowEntry('@Acme.COM')).toEqual({ kind: 'domain', domain: 'acme.com' });
    expect(allowEntry('bücher.example')).toEqual({
      kind: 'domain',
      domain: 'xn--bcher-kva.example',
    });
    expect(() => allowEntry('not a domain')).toThrow(/neither an address nor a domain/);
    expect(() => allowEntry('localhost')).toThrow(/no dot/);
    try {
      allowEntry('<script>@@');
    } catch (error) {
      expect(String(error)).not.toContain('<script>');
    }
  });

  it('lets in the addresses and the domains listed, not their subdomains', () => {
    const entries = ['bob@x.org', 'acme.com', 'bücher.example'].map((e) => allowEntry(e));
    const lets = (email: string) => allowedBy(entries, readerEmail(email));
    expect(lets('BOB@x.org')).toBe(true);
    expect(lets('bob2@x.org')).toBe(false);
    expect(lets('carol@ACME.com')).toBe(true);
    expect(lets('carol@eu.acme.com')).toBe(false);
    expect(lets('ann@Bücher.example')).toBe(true);
    expect(allowedBy([], readerEmail('a@b.org'))).toBe(false);
  });
});
