// Uploads that are not PDFs (issue 45), in process with real processing lanes and the real
// LibreOffice: office documents made by LibreOffice itself (test/support/officeFixtures.ts) and
// images made by sharp go through the same endpoints, are converted as processing's first step
// (status `processing`, step `converting`), and come out as flipbooks whose PDF every later step
// reads; the original stays downloadable beside it. Refusals in words; a document that cannot be
// converted fails its version in words.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  client,
  corpus,
  expectJson,
  type FileSpec,
  SMALL_PDF,
  send,
} from '../support/apiHelpers.ts';
import { useApp } from '../support/appSpec.ts';
import { appFetch } from '../support/inProcess.ts';
import { FODS, FODT, fodp, makeOffice, multiPageTiff } from '../support/officeFixtures.ts';
import { watchOutcome } from '../support/versionWatch.ts';
import { zip } from '../support/zipWriter.ts';

let dir: string;
const upload = async (name: string): Promise<FileSpec> => ({
  bytes: await readFile(join(dir, name)),
  name,
});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'convert-spec-'));
  await Promise.all([
    makeOffice(dir, 'report.fodt', FODT, ['docx']),
    makeOffice(dir, 'deck.fodp', fodp(4), ['pptx']),
    makeOffice(dir, 'long.fodp', fodp(201), ['pptx']),
    makeOffice(dir, 'prices.fods', FODS, ['xlsx']),
  ]);
}, 90_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('uploads that are not PDFs', () => {
  // The service renders 200 pages at most here, as many as the free plan takes: a converted
  // document over both is still refused in the plan's words (--max-pages is met first).
  const fx = useApp({ blobs: 'dir', workers: 2, renderLimits: { maxPages: 200 } });

  /** uploads, waits for the outcome, and returns what was seen */
  const publish = async (file: FileSpec) => {
    const created = await fx.c.create(file);
    expectJson(created, 201);
    expect(created.body.status).toBe('pending');
    const { flipbook_id: flipbookId, version_id: versionId } = created.body;
    const { final } = await watchOutcome(fx.c, flipbookId, versionId, 90_000);
    return { created, flipbookId, versionId, final };
  };

  it('makes a .docx a flipbook: converted first, its heading the contents, its link kept, both files downloadable', async () => {
    const { flipbookId, versionId, final, created } = await publish(await upload('report.docx'));
    expect(created.body.estimated_seconds).toBeGreaterThanOrEqual(5); // the conversion counted
    expect(final).toMatchObject({ status: 'done', pages: 1, file_name: 'report.docx' });
    const events = await fx.eventsOf(flipbookId);
    const types = events.map((e) => e.type);
    expect(types.indexOf('VersionConverted')).toBeGreaterThan(types.indexOf('VersionUploaded'));
    expect(types.indexOf('VersionConverted')).toBeLessThan(types.indexOf('VersionProcessed'));
    const converted = events.find((e) => e.type === 'VersionConverted');
    expect(converted?.data).toMatchObject({
      versionId,
      converter: expect.stringMatching(/^LibreOffice \d/),
      pdf: { checksum: expect.stringMatching(/^[0-9a-f]{64}$/), size: expect.any(Number) },
    });
    expect(converted?.metadata).toMatchObject({ actor: { type: 'worker' } });

    const book = await fx.c.flipbook(flipbookId);
    expect(book.body.versions[0]).toMatchObject({
      file_type: 'docx',
      mime_type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    });
    // The reader's structure, from the PDF made: contents from the heading, the hyperlink.
    const doc = await send(`${fx.base}/files/pages/${versionId}/document.json`);
    expect(doc.status).toBe(200);
    expect(JSON.stringify(doc.body.outline)).toContain('Quarterly Heading');
    expect(JSON.stringify(doc.body.links)).toContain('https://example.org/flipbook/page');
    const text = await send(`${fx.base}/files/pages/${versionId}/1/text.txt`);
    expect(text.text).toContain('the flipbook site');

    // Downloads (allowed by default): the PDF made, named .pdf, and the .docx as it came.
    const made = await appFetch(`${fx.base}/files/originals/${versionId}`);
    expect(made.status).toBe(200);
    expect(made.headers.get('content-type')).toBe('application/pdf');
    expect(made.headers.get('content-disposition')).toContain('report.pdf');
    const madeBytes = Buffer.from(await made.arrayBuffer());
    expect(madeBytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const original = await appFetch(`${fx.base}/files/originals/${versionId}/uploaded`);
    expect(original.status).toBe(200);
    expect(Buffer.from(await original.arrayBuffer())).toEqual(
      await readFile(join(dir, 'report.docx')),
    );
    expect(original.headers.get('content-disposition')).toContain('report.docx');
  }, 120_000);

  it('says `converting` while LibreOffice works, then renders; one page a slide', async () => {
    const created = await fx.c.create(await upload('deck.pptx'));
    expectJson(created, 201);
    const { flipbook_id: flipbookId, version_id: versionId } = created.body;
    const { final } = await watchOutcome(fx.c, flipbookId, versionId, 90_000);
    expect(final).toMatchObject({ status: 'done', pages: 4 });
    // Polled by hand for the steps: a conversion is seconds long, the status says so meanwhile.
    const steps = new Set<string>();
    const second = await fx.c.create(await upload('prices.xlsx'));
    const v2 = second.body.version_id;
    const f2 = second.body.flipbook_id;
    for (;;) {
      const reply = await fx.c.status(f2, v2);
      expectJson(reply, 200);
      steps.add(`${reply.body.status}/${reply.body.step}`);
      if (reply.body.status === 'done' || reply.body.status === 'error') {
        expect(reply.body).toMatchObject({ status: 'done', pages: 1, step: 'finished' });
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(steps).toContain('processing/converting');
  }, 120_000);

  it('makes an image one page at its own proportions, and a multi-page TIFF one page a frame', async () => {
    const photo = await sharp({
      create: { width: 1200, height: 800, channels: 3, background: '#3366aa' },
    })
      .jpeg()
      .toBuffer();
    const one = await publish({ bytes: photo, name: 'photo.jpg' });
    expect(one.final).toMatchObject({ status: 'done', pages: 1 });
    const page = (await fx.c.flipbook(one.flipbookId)).body.pages[0];
    expect(page.width / page.height).toBeCloseTo(1.5, 2);

    const tiff = multiPageTiff([
      { width: 300, height: 400, shade: 40 },
      { width: 400, height: 300, shade: 200 },
      { width: 200, height: 200, shade: 120 },
    ]);
    const scan = await publish({ bytes: tiff, name: 'scan.tif' });
    expect(scan.final).toMatchObject({ status: 'done', pages: 3 });
    const pages = (await fx.c.flipbook(scan.flipbookId)).body.pages;
    expect(pages.map((p: { width: number; height: number }) => p.width > p.height)).toEqual([
      false,
      true,
      false,
    ]);
    const book = await fx.c.flipbook(scan.flipbookId);
    expect(book.body.versions[0]).toMatchObject({ file_type: 'tiff', mime_type: 'image/tiff' });
  }, 120_000);

  it('makes a ZIP of images (a folder) one page an image, in the order their names read', async () => {
    const image = (width: number, height: number, format: 'png' | 'jpeg' | 'webp') =>
      sharp({ create: { width, height, channels: 3, background: '#88aa44' } })
        .toFormat(format)
        .toBuffer();
    const folder = zip([
      { name: 'book/page10.webp', data: await image(300, 100, 'webp') },
      { name: 'book/page2.png', data: await image(200, 100, 'png') },
      { name: 'book/page1.jpg', data: await image(100, 100, 'jpeg'), store: true },
      { name: '__MACOSX/book/._page1.jpg', data: 'resource fork' },
      { name: 'book/notes.txt', data: 'not a page' },
    ]);
    const { flipbookId, final } = await publish({ bytes: folder, name: 'catalogue.zip' });
    expect(final).toMatchObject({ status: 'done', pages: 3 });
    const book = (await fx.c.flipbook(flipbookId)).body;
    expect(book.versions[0]).toMatchObject({ file_type: 'zip', mime_type: 'application/zip' });
    expect(
      book.pages.map((p: { width: number; height: number }) => Math.round(p.width / p.height)),
    ).toEqual([1, 2, 3]);

    // One that lies about an image's size in its directory: the version fails in words.
    const lying = zip([{ name: 'a.png', data: await image(50, 50, 'png'), declaredSize: 10 }]);
    const failed = await publish({ bytes: lying, name: 'lying.zip' });
    expect(failed.final.status).toBe('error');
    expect(failed.final.error_reason).toBe(
      'a.png cannot be unpacked: its size is not the one the ZIP file’s directory gives (a damaged or misleading file)',
    );
    // And one with no image at all is refused at once.
    const none = await fx.c.create({ bytes: zip([{ name: 'a.txt', data: 'x' }]), name: 'x.zip' });
    expectJson(none, 422);
    expect(none.body.error).toBe(
      'The ZIP file holds no images (JPEG, PNG, WebP, TIFF) and is not an office document',
    );
    // And one naming an image by a path not safe to unpack, in words (not as a file of no known kind).
    // (a Windows name's backslashes read as folders, as yauzl reads them)
    const unsafeNames: [string, string][] = [
      ['../../tmp/page1.png', '../../tmp/page1.png'],
      ['/tmp/page1.png', '/tmp/page1.png'],
      ['..\\win\\page1.png', '../win/page1.png'],
      ['book/sub/../page1.png', 'book/sub/../page1.png'],
    ];
    for (const [name, shown] of unsafeNames) {
      const unsafe = await fx.c.create({
        bytes: zip([{ name, data: await image(20, 20, 'png') }]),
        name: 'unsafe.zip',
      });
      expectJson(unsafe, 422);
      expect(unsafe.body.error).toBe(
        `The ZIP file names an entry by a path that is not safe to unpack (${JSON.stringify(shown)}: a “..” or a path from the root): it is not taken`,
      );
    }
  }, 120_000);

  it('refuses in words what it does not take: any other file, one renamed, a ZIP bomb', async () => {
    const text = await fx.c.create({ bytes: Buffer.from('just some words\n'), name: 'notes.docx' });
    expectJson(text, 422);
    expect(text.body.error).toMatch(/^The file is not a kind this service takes \(a PDF; a Word/);
    const ML = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml';
    const bomb = zip([
      {
        name: '[Content_Types].xml',
        data: `<Types><Override PartName="/word/document.xml" ContentType="${ML}"/></Types>`,
      },
      { name: 'word/document.xml', data: 'x', declaredSize: 0xfffffff0 },
    ]);
    const refused = await fx.c.create({ bytes: bomb, name: 'big.docx' });
    expectJson(refused, 422);
    expect(refused.body.error).toMatch(/unpacks to 4096 MB, more than the 1024 MB accepted/);
    // A .docx cut short: a damaged document, said so.
    const whole = await readFile(join(dir, 'report.docx'));
    const cut = await fx.c.create({ bytes: whole.subarray(0, whole.length / 2), name: 'cut.docx' });
    expectJson(cut, 422);
    expect(cut.body.error).toMatch(/^The file cannot be read as an office document: a damaged/);
    // A PDF named .docx is a PDF: told by its content, not its name.
    // (its name with quotes, which the form sends as %22, kept as the person wrote it)
    const renamed = await fx.c.create({ bytes: corpus(SMALL_PDF), name: 'the "final" one.docx' });
    expectJson(renamed, 201);
    const book = await fx.c.flipbook(renamed.body.flipbook_id);
    expect(book.body.versions[0]).toMatchObject({
      file_type: 'pdf',
      mime_type: 'application/pdf',
      file_name: 'the "final" one.docx',
    });
  });

  it("holds a converted document to the plan's page limit, as a PDF is at upload", async () => {
    const free = client(fx.api, (await fx.newWorkspace('thrifty', 'free')).key);
    const created = await free.create(await upload('long.pptx'));
    expectJson(created, 201); // its pages are not known before it is converted
    const { final } = await watchOutcome(
      free,
      created.body.flipbook_id,
      created.body.version_id,
      90_000,
    );
    expect(final).toMatchObject({
      status: 'error',
      error_reason:
        'Too many pages for the free plan: the limit is 200 pages per document, this one has 201',
    });
  }, 120_000);

  it('fails an image that breaks past its header in words, at once (not after retries)', async () => {
    const photo = await sharp({
      create: {
        width: 800,
        height: 600,
        channels: 3,
        background: '#3366aa',
        noise: { type: 'gaussian', mean: 100, sigma: 30 },
      },
    })
      .jpeg()
      .toBuffer();
    const { final } = await publish({
      bytes: photo.subarray(0, photo.length / 2),
      name: 'cut.jpg',
    });
    expect(final).toMatchObject({
      status: 'error',
      error_reason: 'The image could not be read: its data is damaged or cut short',
    });
  }, 60_000);

  it('fails a document LibreOffice cannot open, in words', async () => {
    const ML = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml';
    const garbage = zip([
      {
        name: '[Content_Types].xml',
        data: `<Types><Override PartName="/word/document.xml" ContentType="${ML}"/></Types>`,
      },
      { name: 'word/document.xml', data: '<w:document><<<not xml' },
    ]);
    const { final } = await publish({ bytes: garbage, name: 'broken.docx' });
    expect(final).toMatchObject({
      status: 'error',
      error_reason: 'The document is damaged: LibreOffice could not open it',
    });
  }, 120_000);
});

describe('a server that takes no office documents', () => {
  const fx = useApp({ blobs: 'dir', convertsOffice: false });

  it('refuses them in words and still takes images', async () => {
    const docx = await fx.c.create(await upload('report.docx'));
    expectJson(docx, 422);
    expect(docx.body.error).toBe(
      'This server does not convert office documents (it runs without LibreOffice): upload a PDF; or an image (JPEG, PNG, WebP, TIFF), or a ZIP of images',
    );
    const png = await sharp({ create: { width: 10, height: 10, channels: 3, background: '#fff' } })
      .png()
      .toBuffer();
    expectJson(await fx.c.create({ bytes: png, name: 'dot.png' }), 201);
  });
});
