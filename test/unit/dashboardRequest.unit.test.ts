// The dashboard's request rules that need no browser: cookies, origins, CSRF, escaping.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { checkCsrf, safeNext } from '../../src/dashboard/request.ts';
import { clearedCookie, cookieName, readCookie, sessionCookie } from '../../src/http/cookies.ts';
import { html, trusted } from '../../src/http/html.ts';
import { checkSameOrigin } from '../../src/http/sameOrigin.ts';

const request = (headers: Record<string, string>) =>
  ({ headers, socket: {} }) as unknown as IncomingMessage;

describe('dashboard requests', () => {
  it('comes back only to a path of this site, in visible ASCII', () => {
    for (const ok of ['/dashboard', '/dashboard/keys?x=1#y', '/dashboard/%E3%80%82']) {
      expect(safeNext(ok), ok).toBe(ok);
    }
    for (const bad of [
      '//evil.example',
      '/\\evil.example',
      '/dashboard/\\x',
      'https://evil.example',
      'javascript:alert(1)',
      '/dashboard/\u3002',
      '/dashboard/é',
      '/dash board',
      '/\tevil',
      '',
      null,
      `/${'a'.repeat(600)}`,
    ]) {
      expect(safeNext(bad), String(bad)).toBeNull();
    }
  });

  it('names the cookie __Host- and makes it Secure only on https', () => {
    const until = new Date('2026-12-07T10:00:00Z');
    expect(cookieName(true)).toBe('__Host-flipbook_session');
    expect(sessionCookie(true, 'tok', until)).toBe(
      '__Host-flipbook_session=tok; Path=/; HttpOnly; SameSite=Lax; Expires=Mon, 07 Dec 2026 10:00:00 GMT; Secure',
    );
    expect(sessionCookie(false, 'tok', until)).not.toContain('Secure');
    expect(clearedCookie(false)).toContain('Max-Age=0');
    expect(
      readCookie(request({ cookie: 'a=1; flipbook_session=xyz; b=2' }), 'flipbook_session'),
    ).toBe('xyz');
    expect(readCookie(request({ cookie: 'xflipbook_session=1' }), 'flipbook_session')).toBeNull();
  });

  it('takes forms from this site only', () => {
    const site = 'https://books.example.com';
    expect(() => checkSameOrigin(request({ origin: site }), site)).not.toThrow();
    expect(() => checkSameOrigin(request({}), site)).not.toThrow(); // an old browser: no headers
    expect(() => checkSameOrigin(request({ 'sec-fetch-site': 'same-origin' }), site)).not.toThrow();
    // A no-referrer page's own form: Origin null, and Sec-Fetch-Site says whose it is.
    const own = { origin: 'null', 'sec-fetch-site': 'same-origin' };
    expect(() => checkSameOrigin(request(own), site)).not.toThrow();
    const refused: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: 'null', 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ];
    for (const headers of refused) {
      expect(() => checkSameOrigin(request(headers), site), JSON.stringify(headers)).toThrow(
        /another site/,
      );
    }
    expect(() => checkCsrf('abc', 'abc')).not.toThrow();
    expect(() => checkCsrf('abd', 'abc')).toThrow(/expired/);
    expect(() => checkCsrf(undefined, 'abc')).toThrow(/expired/);
  });

  it('escapes every value put into a page, once', () => {
    const name = `<script>alert("x")</script> & 'co'`;
    expect(html`<p title="${name}">${name}</p>`.text).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39;</p>',
    );
    const items = ['<a>', 'b'].map((i) => html`<li>${i}</li>`);
    expect(html`<ul>${items}</ul>`.text).toBe('<ul><li>&lt;a&gt;</li><li>b</li></ul>');
    expect(html`${null}${undefined}${false}${0}${trusted('<svg></svg>')}`.text).toBe(
      '0<svg></svg>',
    );
  });
});
