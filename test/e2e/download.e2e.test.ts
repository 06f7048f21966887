// `flipbook download ID off` removes the reader's Download button and closes the original's link.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/store.ts';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import { markDone } from '../support/apiHelpers.ts';
import { flipbook } from '../support/cli.ts';
import { corpus } from '../support/corpus.ts';

describe('downloads of the original', () => {
  let fx: ApiFixture;
  beforeAll(async () => {
    fx = await startApi('embedded');
  });
  afterAll(() => fx?.stop());

  it('can be turned off and on for a flipbook', async () => {
    const form = new FormData();
    form.set('file', new Blob([await readFile(corpus('text_multicolumn.pdf'))]), 'm.pdf');
    const created = await fetch(`${fx.api}/flipbooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fx.key}` },
      body: form,
    });
    const { flipbook_id: id, version_id: versionId } = (await created.json()) as {
      flipbook_id: string;
      version_id: string;
    };
    const store = await openStore({ dataDir: fx.storeArgs[1] });
    await markDone(store, id, versionId, 1);
    await store.close();
    const reader = `${fx.daemon.url}/f/${id}`;
    const original = `${fx.daemon.url}/files/originals/${versionId}`;

    expect(await (await fetch(reader)).text()).toContain('data-action="download"');
    expect((await fetch(original)).status).toBe(200);

    const off = await flipbook(['download', id, 'off', ...fx.storeArgs]);
    expect(off.code).toBe(0);
    expect(await (await fetch(reader)).text()).not.toContain('data-action="download"');
    expect((await fetch(original)).status).toBe(404);

    expect((await flipbook(['download', id, 'on', ...fx.storeArgs])).code).toBe(0);
    expect((await fetch(original)).status).toBe(200);
    expect((await flipbook(['download', id, 'maybe', ...fx.storeArgs])).code).toBe(2);

    const events = JSON.parse((await flipbook(['events', id, '--json', ...fx.storeArgs])).stdout);
    expect(
      events.filter((e: { type: string }) => e.type === 'FlipbookDownloadChanged'),
    ).toHaveLength(2);
  });
});
