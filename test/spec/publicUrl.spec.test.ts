// The public URL is the base of every absolute URL the API returns (url, img_*) and of the
// reader's Open Graph tags, whatever address a request came to, so a shared link shows the cover
// from the public address. The whole app in process (test/support/appSpec.ts): its public URL is
// its origin, and the requests here come to another (a Host of the machine's own address). That
// `serve --public-url` sets it, trailing slash and all, is test/e2e/publicUrlFlag.e2e.test.ts's.
import { describe, expect, it } from 'vitest';
import { markDone, pdf } from '../support/apiHelpers.ts';
import { useApp } from '../support/appSpec.ts';
import { appInject } from '../support/inProcess.ts';

const LOCAL = '127.0.0.1:8080'; // the address the requests come to: not the public one

describe('the public URL', () => {
  const app = useApp();
  /** a GET as it reaches the app at LOCAL */
  const get = (path: string, headers: Record<string, string> = {}) =>
    appInject(`${app.base}${path}`, { method: 'GET', headers: { ...headers, host: LOCAL } });

  it('builds the reader url, the page images and the Open Graph cover on it', async () => {
    const created = await app.c.create(pdf('text_multicolumn.pdf', 'm.pdf'), { title: 'Public' });
    const { flipbook_id: id, version_id: versionId } = created.body as {
      flipbook_id: string;
      version_id: string;
    };
    await markDone(app.store, id, versionId, 2);

    const asked = await get(`/api/v1/flipbooks/${id}`, { authorization: `Bearer ${app.key}` });
    expect(asked.status).toBe(200);
    const book = (await asked.json()) as {
      url: string;
      pages: { img_max: string; img_mid: string; img_min: string }[];
    };
    expect(book.url).toBe(`${app.base}/f/${id}`);
    expect(book.pages).toHaveLength(2);
    for (const page of book.pages) {
      for (const img of [page.img_max, page.img_mid, page.img_min]) {
        expect(img.startsWith(`${app.base}/files/pages/${versionId}/`)).toBe(true);
      }
    }

    const html = await (await get(`/f/${id}`)).text();
    expect(html).toContain(`<meta property="og:url" content="${app.base}/f/${id}">`);
    expect(html).toContain(`<meta property="og:image" content="${book.pages[0]?.img_mid}">`);
    expect(html).toContain('<meta property="og:title" content="Public">');
    expect(html).not.toContain(LOCAL);
  });
});
