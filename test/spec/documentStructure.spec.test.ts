// The worker writes each version's structure as document.json beside its page folders: the whole
// app in process (test/support/appSpec.ts) with one processing lane, on PostgreSQL and a blob
// folder, processes a PDF written by hand (test/support/structuredPdf.ts) and one whose structure
// cannot be read beyond its pages, and both are `done`. Beside it, lines.json: every page's lines
// for the reader's text in place (src/pdf/pageLines.ts), served the same way.
import { describe, expect, it } from 'vitest';
import { createFlipbook, expectJson, pdf, sleep } from '../support/apiHelpers.ts';
import { useApp } from '../support/appSpec.ts';
import { appFetch } from '../support/inProcess.ts';
import { pdfBytes } from '../support/pdfWriter.ts';
import { structuredPdf } from '../support/structuredPdf.ts';

describe('document.json', () => {
  const app = useApp({ workers: 1 });

  const processed = async (file: { bytes: Uint8Array; name: string; type?: string }) => {
    const c = app.c;
    const { flipbookId, versionId } = await createFlipbook(c, {}, file);
    const deadline = Date.now() + 90_000;
    for (;;) {
      const reply = await c.status(flipbookId, versionId);
      expectJson(reply, 200);
      if (reply.body.status === 'done' || reply.body.status === 'error') {
        expect(reply.body.status).toBe('done');
        break;
      }
      if (Date.now() > deadline) throw new Error('the version was not processed in time');
      await sleep(100);
    }
    const [stored, lines] = await Promise.all(
      (['document.json', 'lines.json'] as const).map(async (file) => {
        const kept = JSON.parse((await app.blobs.readDocument(versionId, file)) ?? 'null');
        // served to the reader as it is stored: immutable once done, compressed when asked
        const served = await appFetch(`${app.base}/files/pages/${versionId}/${file}`, {
          headers: { 'accept-encoding': 'gzip' },
        });
        expect(served.status).toBe(200);
        expect(served.headers.get('cache-control')).toMatch(/immutable/);
        expect(served.headers.get('content-type')).toMatch(/^application\/json/);
        // (decoded by appFetch, as fetch decodes it)
        expect(await served.json()).toEqual(kept);
        return kept;
      }),
    );
    return { structure: stored, lines };
  };

  it("holds the version's title, direction, outline, labels and links", async () => {
    const { structure } = await processed({
      bytes: new Uint8Array(pdfBytes(structuredPdf())),
      name: 'structured.pdf',
      type: 'application/pdf',
    });
    expect(structure.title).toBe('Structured Book test');
    expect(structure.direction).toBe('rtl');
    expect(structure.labels).toEqual(['i', 'ii', '1', '2', 'A-1']);
    expect(structure.outline.map((e: { title: string }) => e.title)).toEqual([
      'Front matter',
      'Chapter One',
      'Grouping — heading',
      'Loop',
    ]);
    expect(structure.links).toHaveLength(5);
    expect(structure.links[1].map((l: { page?: number; uri?: string }) => l.page ?? l.uri)).toEqual(
      [3, 4, 4, 'https://example.org/a?b=1', 'mailto:team@example.org', 3],
    );
  }, 120_000);

  it('is a 404 for an unknown version, and before the structure is written', async () => {
    for (const file of ['document.json', 'lines.json']) {
      const unknown = await appFetch(
        `${app.base}/files/pages/00000000-0000-4000-8000-000000000000/${file}`,
      );
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toEqual({ error: 'Not found' });
    }
  });

  it('is written, empty but well-formed, for a PDF with no structure to read; its lines are', async () => {
    const { structure, lines } = await processed(pdf('text_multicolumn.pdf'));
    // every page's lines, each a box in fractions of the page and its text, in reading order
    expect(lines.pages).toHaveLength(3);
    const first: [number, number, number, number, string][] = lines.pages[0];
    expect(first.map((line) => line[4]).slice(0, 2)).toEqual([
      'Two-Column Document with Lorem Ipsum',
      'Your Name',
    ]);
    for (const [x, y, w, h] of lines.pages.flat()) {
      for (const n of [x, y, w, h]) expect(n).toBeGreaterThanOrEqual(0);
      expect(x + w).toBeLessThanOrEqual(1);
      expect(y + h).toBeLessThanOrEqual(1);
    }
    expect(structure).toEqual({
      title: null,
      direction: 'ltr',
      outline: [],
      labels: null,
      links: [[], [], []],
      lines: lines.pages.flat().length,
    });
  }, 120_000);
});
