// --public-url is the base of every absolute URL the API returns (url, img_*) and of the reader's
// Open Graph tags, so a shared link shows the cover from the public address.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import { markDone, openStoreOf } from '../support/apiHelpers.ts';
import { corpus } from '../support/corpus.ts';

const PUBLIC = 'https://flipbooks.example.com';

describe('serve --public-url', () => {
  let fx: ApiFixture;
  let local: string; // the daemon itself: the public name points nowhere in a test
  beforeAll(async () => {
    fx = await startApi('embedded', ['--public-url', `${PUBLIC}/`]);
    local = `http://127.0.0.1:${/"port":(\d+)/.exec(fx.daemon.logs())?.[1]}`;
  });
  afterAll(() => fx?.stop());

  it('builds the reader url, the page images and the Open Graph cover on it', async () => {
    const form = new FormData();
    form.set('file', new Blob([await readFile(corpus('text_multicolumn.pdf'))]), 'm.pdf');
    form.set('title', 'Public');
    const headers = { authorization: `Bearer ${fx.key}` };
    const created = await fetch(`${local}/api/v1/flipbooks`, {
      method: 'POST',
      headers,
      body: form,
    });
    const { flipbook_id: id, version_id: versionId } = (await created.json()) as {
      flipbook_id: string;
      version_id: string;
    };
    const store = await openStoreOf(fx.storeArgs);
    await markDone(store, id, versionId, 2);
    await store.close();

    const book = (await (await fetch(`${local}/api/v1/flipbooks/${id}`, { headers })).json()) as {
      url: string;
      pages: { img_max: string; img_mid: string; img_min: string }[];
    };
    expect(book.url).toBe(`${PUBLIC}/f/${id}`);
    expect(book.pages).toHaveLength(2);
    for (const page of book.pages) {
      for (const img of [page.img_max, page.img_mid, page.img_min]) {
        expect(img.startsWith(`${PUBLIC}/files/pages/${versionId}/`)).toBe(true);
      }
    }

    const html = await (await fetch(`${local}/f/${id}`)).text();
    expect(html).toContain(`<meta property="og:url" content="${PUBLIC}/f/${id}">`);
    expect(html).toContain(`<meta property="og:image" content="${book.pages[0]?.img_mid}">`);
    expect(html).toContain('<meta property="og:title" content="Public">');
  });
});
