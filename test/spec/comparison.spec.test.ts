// A preview compared with the live version (issue "Review a PDF change like a code change";
// docs/ci.md): real corpus documents with known edits (a word laid over a page, a page inserted,
// one removed, two swapped, a scanned page replaced by a photo), each published as a preview of a
// slug whose live version is the unedited document. The whole app in process, two lanes.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectJson,
  type FileSpec,
  form,
  type Json,
  send,
  waitActive,
} from '../support/apiHelpers.ts';
import { type UsedApp, useApp } from '../support/appSpec.ts';
import { corpus } from '../support/corpus.ts';
import { editsFolder, pagesFrom, STAMP, withWord } from '../support/editedPdfs.ts';
import { appFetch } from '../support/inProcess.ts';
import { waitFor } from '../support/waitFor.ts';

const PAPER = corpus('vec_tracemonkey.pdf'); // text and charts, 14 pages: the first 8 here
const OTHER = corpus('vec_vector.pdf');
const SCANS = corpus('img_scans-multipage.pdf'); // 6 scanned pages, no text
const PHOTO = corpus('img_photos-issue5481.pdf');

let dir: string;
const files: Record<string, string> = {};
beforeAll(async () => {
  dir = await editsFolder();
  const at = (name: string) => join(dir, `${name}.pdf`);
  files.base = await pagesFrom(at('base'), [PAPER, '1-8']);
  files.word = await withWord(files.base, 3, 'REVIEWED', at('word'));
  files.inserted = await pagesFrom(at('inserted'), [PAPER, '1-4'], [OTHER, '1'], [PAPER, '5-8']);
  files.removed = await pagesFrom(at('removed'), [PAPER, '1-5,7-8']);
  files.swapped = await pagesFrom(at('swapped'), [PAPER, '1-3,5,4,6-8']);
  files.scans = await pagesFrom(at('scans'), [SCANS, '1-6']);
  files.photo = await pagesFrom(at('photo'), [SCANS, '1-2'], [PHOTO, '1'], [SCANS, '4-6']);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const upload = async (name: string): Promise<FileSpec> => ({
  bytes: new Uint8Array(await readFile(files[name] as string)),
  name: `${name}.pdf`,
  type: 'application/pdf',
});

const previewsOf = (slug: string) => `/flipbooks/by-slug/${slug}/previews`;

const comparing = (fx: UsedApp) => {
  const live = async (slug: string, name: string) => {
    const made = await send(`${fx.api}/flipbooks/by-slug/${slug}/versions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fx.key}` },
      body: form({}, await upload(name)),
    });
    expectJson(made, 201);
    await waitActive(fx.c, made.body.flipbook_id, made.body.version_id);
    return made.body as Json;
  };
  /** publishes a preview and waits for its comparison */
  const compared = async (slug: string, preview: string, name: string) => {
    const made = await send(`${fx.api}${previewsOf(slug)}/${preview}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fx.key}` },
      body: form({}, await upload(name)),
    });
    expectJson(made, 201);
    return waitFor(`preview ${preview} compared`, async () => {
      const shown = await fx.c.get(`${previewsOf(slug)}/${preview}`);
      expectJson(shown, 200);
      expect(shown.body.status).not.toBe('error');
      return shown.body.compare ? (shown.body as Json) : undefined;
    });
  };
  return { live, compared };
};

describe('comparing a preview with the live version', () => {
  const fx = useApp({ workers: 2 });
  const { live, compared } = comparing(fx);
  let liveVersion: string;
  beforeAll(async () => {
    liveVersion = (await live('paper', 'base')).version_id;
  }, 120_000);

  it('finds nothing changed in the same document', async () => {
    const preview = await compared('paper', 'same', 'base');
    expect(preview.compare).toEqual({
      against_version_id: liveVersion,
      pages_before: 8,
      pages_after: 8,
      changed: [],
      inserted: [],
      removed: [],
      moved: [],
      unchanged: 8,
    });
  });

  it('finds the one word laid over page 3, where it is, with thumbnails before, after and marked', async () => {
    const preview = await compared('paper', 'pr-word', 'word');
    const { compare } = preview;
    expect(compare).toMatchObject({ inserted: [], removed: [], moved: [], unchanged: 7 });
    expect(compare.changed).toHaveLength(1);
    const [page] = compare.changed;
    expect(page).toMatchObject({ before: 3, after: 3 });
    expect(page.regions).toHaveLength(1);
    const [x, y] = page.regions[0];
    expect(x).toBeCloseTo(STAMP.x / 612, 1);
    expect(y).toBeCloseTo((792 - STAMP.y - STAMP.height) / 792, 1);
    expect(page.compare_url).toBe(`${preview.preview_url}#compare=3`);
    for (const image of [page.before_image, page.after_image, page.diff_image]) {
      expect(image.startsWith(`${preview.preview_url}/pages/${preview.version_id}/3/`)).toBe(true);
    }
    // the events say what the reviewer was shown, in counts
    const events = await fx.eventsOf(preview.flipbook_id);
    const recorded = events.filter((e) => e.type === 'PreviewCompared');
    expect(recorded.at(-1)?.data).toMatchObject({
      name: 'pr-word',
      versionId: preview.version_id,
      againstVersionId: liveVersion,
      changed: 1,
      inserted: 0,
      removed: 0,
      unchanged: 7,
    });
    expect(recorded.at(-1)?.metadata).toMatchObject({ actor: { type: 'worker' } });
  });

  it('finds a page inserted and a page removed without making the later pages changed', async () => {
    const inserted = await compared('paper', 'pr-insert', 'inserted');
    expect(inserted.compare).toMatchObject({
      pages_after: 9,
      changed: [],
      inserted: [5],
      removed: [],
      unchanged: 8,
    });
    const removed = await compared('paper', 'pr-remove', 'removed');
    expect(removed.compare).toMatchObject({
      pages_after: 7,
      changed: [],
      inserted: [],
      removed: [6],
      unchanged: 7,
    });
  });

  it('tells two pages swapped as a page moved, nothing inserted or removed', async () => {
    const preview = await compared('paper', 'pr-swap', 'swapped');
    expect(preview.compare).toMatchObject({ changed: [], inserted: [], removed: [] });
    expect(preview.compare.moved).toHaveLength(1);
    const [moved] = preview.compare.moved;
    expect([moved.before, moved.after].sort()).toEqual([4, 5]);
  });
});

describe('comparing pages without text, and with nothing live', () => {
  const fx = useApp({ workers: 2 });
  const { live, compared } = comparing(fx);

  it('aligns scanned pages by their images: the one replaced by a photo is changed, at its place', async () => {
    await live('scans', 'scans');
    const preview = await compared('scans', 'pr-photo', 'photo');
    expect(preview.compare).toMatchObject({ inserted: [], removed: [], moved: [], unchanged: 5 });
    expect(preview.compare.changed.map((c: Json) => [c.before, c.after])).toEqual([[3, 3]]);
    // the thumbnails are served at the preview's address, never cached publicly
    for (const url of ['before_image', 'after_image', 'diff_image'].map(
      (k) => preview.compare.changed[0][k],
    )) {
      const image = await appFetch(url);
      expect(image.status, url).toBe(200);
      expect(image.headers.get('content-type')).toBe('image/jpeg');
      expect(image.headers.get('cache-control')).toMatch(/private/);
    }
    // and not at the public address of the (public) flipbook's files
    const publicFile = await appFetch(`${fx.base}/files/pages/${preview.version_id}/3/diff.jpg`);
    expect(publicFile.status).toBe(404);
    // promoted, its version is the live one: its pages public, its comparison's images not
    const promoted = await fx.c.post(`${previewsOf('scans')}/pr-photo/promote`);
    expectJson(promoted, 200);
    const publicPage = `${fx.base}/files/pages/${preview.version_id}/3`;
    expect((await appFetch(`${publicPage}/min.jpg`)).status).toBe(200);
    expect((await appFetch(`${publicPage}/diff.jpg`)).status).toBe(404);
  });

  it('says so when nothing was live to compare with; the preview still works', async () => {
    const preview = await compared('fresh', 'pr-1', 'scans');
    expect(preview.status).toBe('done');
    expect(preview.compare).toEqual({
      against_version_id: null,
      pages_before: 0,
      pages_after: 6,
      changed: [],
      inserted: [],
      removed: [],
      moved: [],
      unchanged: 0,
      failure: 'No version of this flipbook was live to compare with',
    });
  });
});
