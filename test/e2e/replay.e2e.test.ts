// After `flipbook replay` rebuilds every read table from the events, the API answers exactly as
// before, while the daemon keeps running.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiFixture, startApi } from '../support/apiFixture.ts';
import { flipbook } from '../support/cli.ts';
import { corpus } from '../support/corpus.ts';

const PDF = corpus('text_multicolumn.pdf');

describe.each(['embedded', 'postgres'] as const)('replay on the %s store', (kind) => {
  let fx: ApiFixture;
  beforeAll(async () => {
    fx = await startApi(kind);
  });
  afterAll(() => fx?.stop());

  const get = async (path: string) => {
    const res = await fetch(`${fx.api}${path}`, { headers: { authorization: `Bearer ${fx.key}` } });
    return { status: res.status, body: await res.json() };
  };

  it('leaves every API answer unchanged', async () => {
    const bytes = await readFile(PDF);
    const ids: string[] = [];
    for (const title of ['Alpha', 'Beta', 'Gamma']) {
      const form = new FormData();
      form.set('file', new Blob([bytes], { type: 'application/pdf' }), 'doc.pdf');
      form.set('title', title);
      const res = await fetch(`${fx.api}/flipbooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fx.key}` },
        body: form,
      });
      expect(res.status).toBe(201);
      ids.push(((await res.json()) as { flipbook_id: string }).flipbook_id);
    }
    const form = new FormData();
    form.set('file', new Blob([bytes], { type: 'application/pdf' }), 'v2.pdf');
    form.set('activate', 'no');
    const version = await fetch(`${fx.api}/flipbooks/${ids[0]}/versions`, {
      method: 'POST',
      headers: { 'x-api-key': fx.key },
      body: form,
    });
    expect(version.status).toBe(201);

    const paths = [
      '/flipbooks?sort=title&dir=asc',
      '/flipbooks?search=a&per_page=2',
      ...ids.map((id) => `/flipbooks/${id}`),
    ];
    const before = await Promise.all(paths.map(get));
    expect(before.every((r) => r.status === 200)).toBe(true);

    const replay = await flipbook(['replay', '--json', ...fx.storeArgs]);
    expect(replay.code).toBe(0);
    expect(JSON.parse(replay.stdout).events).toBeGreaterThanOrEqual(9);

    const after = await Promise.all(paths.map(get));
    expect(after).toEqual(before);
  });
});
