// `serve --public-url` (given with a trailing slash) is the base of the URLs the daemon builds,
// though it is reached at its own address. Every URL built on the public URL (the API's url and
// img_*, the reader's Open Graph tags) is test/spec/publicUrl.spec.test.ts's; this is the flag.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import { client, createFlipbook } from '../support/apiHelpers.ts';

const PUBLIC = 'https://flipbooks.example.com';

describe('serve --public-url', () => {
  let fx: ApiFixture;
  let local: string; // the daemon itself: the public name points nowhere in a test
  beforeAll(async () => {
    fx = await startApi('embedded', ['--public-url', `${PUBLIC}/`]);
    local = `http://127.0.0.1:${/"port":(\d+)/.exec(fx.daemon.logs())?.[1]}`;
  });
  afterAll(() => fx?.stop());

  it('builds the reader url on it, without the trailing slash', async () => {
    const c = client(`${local}/api/v1`, fx.key);
    const { flipbookId } = await createFlipbook(c, { title: 'Public' });
    expect((await c.flipbook(flipbookId)).body.url).toBe(`${PUBLIC}/f/${flipbookId}`);
  });
});
