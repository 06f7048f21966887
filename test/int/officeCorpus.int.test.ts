// officeToPdf over REAL office files written by Word, PowerPoint, Excel and LibreOffice, not made
// here: the test corpora of Apache POI and Apache Tika, copied whole into
// test/fixtures/office/real (their sources, commits and licences in its README.md). The
// generated files of officePdf.int.test.ts are what soffice writes itself; these carry what the
// Office applications write: right-to-left Arabic, Japanese with ruby, a hidden slide and speaker
// notes, a print area on a wide sheet, a VBA project, a link to another workbook, encryption.
//
// - Each file converts and has the page count of plain LibreOffice's own PDF export
//   (`soffice --headless --convert-to pdf`, a fresh profile, LibreOffice 7.4.7: the numbers in
//   FILES). Two of them, where officeToPdf's export options differ from the defaults (the deck:
//   no hidden slides, no notes pages; the sheet: Calc's export), are checked against a plain run
//   here too; the others would double the test's time for the same check.
// - What the reader must see: the Arabic and Japanese text in pdftotext's output, the headings
//   as the PDF's outline, the hyperlinks as /Link annotations with their URIs (qpdf --json).
// - The .docm converts (its macro is not an auto-run one, and the hardened profile runs none);
//   the .xlsx whose cells point at another workbook converts with its cached values, the other
//   workbook absent and no network; an encrypted .docx is refused with reason 'password'. One
//   surprise kept as a test: an OOXML encrypted with Office's default password (VelvetSweatshop,
//   POI's protected_agile.docx) is sniffed as encrypted, yet LibreOffice opens it and converts.
// - A deck's review comments (with their authors' names) stay out of the PDF: they reached it
//   until the Impress filter said ExportNotes false (found here).
// - Two conversions at a time at most (the machine has two cores; a third only queues for CPU).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ConversionFailed, officeToPdf } from '../../src/pdf/officePdf.ts';
import { sniffFile } from '../../src/pdf/sniffFile.ts';

const REAL = join(import.meta.dirname, '../fixtures/office/real');

/** Every file but the password-protected one, and the pages plain LibreOffice 7.4.7 exports. */
const FILES: Record<string, { pages: number; what: string }> = {
  'testWORD.docx': { pages: 2, what: 'Word: headings 1-3, two hyperlinks, a nested table' },
  'stress011.docx': { pages: 41, what: 'Word: Arabic, right to left (a UN document)' },
  '61470.docx': { pages: 1, what: 'Word: Japanese with ruby (furigana)' },
  'testWORD.doc': { pages: 2, what: 'Word 97-2003 binary' },
  'testODFwithOOo3.odt': { pages: 2, what: 'OpenOffice.org 3.1: tracked changes, a note, frames' },
  'testRTF.rtf': { pages: 1, what: 'RTF from Word 2003, French' },
  'testPPT_various2.pptx': { pages: 9, what: 'PowerPoint: 10 slides, one hidden, notes' },
  'testPPT.ppt': { pages: 1, what: 'PowerPoint 97-2003 binary, from PowerPoint for Mac' },
  'LibreOfficeImpress_odp_1.3.odp': { pages: 2, what: 'Impress, ODF 1.3' },
  '49156.xlsx': { pages: 2, what: 'Excel: a sheet 136 columns wide, a print area of 10' },
  'testEXCEL.xls': { pages: 1, what: 'Excel 97-2003 binary, from Excel for Mac' },
  'LibreOfficeCalc_ods_1.3.ods': { pages: 1, what: 'Calc, ODF 1.3' },
  'SimpleMacro.docm': { pages: 1, what: 'Word, macro-enabled: a VBA project' },
  'ref-56737.xlsx': { pages: 3, what: 'Excel: cells and names of another workbook' },
  'protected_agile.docx': { pages: 1, what: 'Word, encrypted with the default password' },
};
const ENCRYPTED = 'testWORD_protected_passtika.docx'; // password "tika"

let dir: string;

/** At most `n` jobs at once; the others wait their turn, in order. */
const slots = (n: number) => {
  let free = n;
  const waiting: (() => void)[] = [];
  return async <T>(job: () => Promise<T>): Promise<T> => {
    if (free > 0) free--;
    else await new Promise<void>((go) => waiting.push(go));
    try {
      return await job();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free++;
    }
  };
};
const twoAtATime = slots(2);

/** One officeToPdf a file, shared by the tests that read its PDF. */
const conversions = new Map<string, ReturnType<typeof officeToPdf>>();
const convert = (name: string) => {
  let converting = conversions.get(name);
  if (!converting) {
    converting = twoAtATime(() => officeToPdf(join(REAL, name), join(dir, 'out', name)));
    conversions.set(name, converting);
  }
  return converting;
};

// poppler's stderr is dropped: it complains of every comment's /Popup (no /Rect), see below.
const poppler = (program: string, args: string[]) =>
  execFileSync(program, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
const pdfinfoPages = (pdf: string) =>
  Number(/^Pages:\s+(\d+)/m.exec(poppler('pdfinfo', [pdf]))?.[1]);
const pdftotext = (pdf: string) => poppler('pdftotext', [pdf, '-']);
const qpdfJson = (pdf: string) =>
  JSON.parse(
    execFileSync('qpdf', ['--json', pdf], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }),
  );
type Annotation = { '/Subtype'?: string; '/A'?: { '/URI'?: string } };
/** The PDF's annotations: qpdf's JSON v2 has every object under qpdf[1] (a string is "u:…"). */
const annotations = (json: { qpdf: [unknown, Record<string, { value?: unknown }>] }) =>
  Object.values(json.qpdf[1])
    .map((o) => o.value as (Annotation & { '/Type'?: string }) | undefined)
    .filter((v): v is Annotation => v?.['/Type'] === '/Annot');

/** Plain LibreOffice: `soffice --convert-to pdf`, its default export, a fresh profile. */
const plainSoffice = (name: string) =>
  twoAtATime(async () => {
    const profile = await mkdtemp(join(tmpdir(), 'officeCorpus-profile-'));
    const out = join(dir, 'plain', name);
    try {
      await new Promise<void>((done, fail) => {
        const child = spawn(
          'soffice',
          [
            `-env:UserInstallation=file://${profile}`,
            ...['--headless', '--norestore', '--convert-to', 'pdf', '--outdir', out],
            join(REAL, name),
          ],
          { detached: true, stdio: 'ignore', env: { ...process.env, HOME: profile } },
        );
        const killGroup = () => {
          try {
            if (child.pid) process.kill(-child.pid, 'SIGKILL');
          } catch {
            // gone already
          }
        };
        const clock = setTimeout(killGroup, 100_000);
        child.once('error', fail);
        child.once('exit', () => {
          clearTimeout(clock);
          killGroup(); // soffice.bin too
          done();
        });
      });
      const pdf = (await readdir(out)).find((f) => f.endsWith('.pdf'));
      return pdf ? pdfinfoPages(join(out, pdf)) : undefined;
    } finally {
      await rm(profile, { recursive: true, force: true });
    }
  });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'officeCorpus-int-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.concurrent('officeToPdf over real office files', () => {
  it('has every file of the corpus in FILES, and nothing else', async ({ expect }) => {
    const onDisk = (await readdir(REAL)).filter((f) =>
      /\.(docx?|docm|odt|rtf|pptx?|odp|xlsx?|ods)$/.test(f),
    );
    expect(onDisk.sort()).toEqual([...Object.keys(FILES), ENCRYPTED].sort());
  });

  for (const [name, { pages, what }] of Object.entries(FILES)) {
    it(`converts ${name} (${what}) to the ${pages} page(s) LibreOffice exports`, async ({
      expect,
    }) => {
      const converted = await convert(name);
      expect(converted.pages).toBe(pages);
      expect(pdfinfoPages(converted.pdf)).toBe(pages);
    }, 120_000);
  }

  it('agrees with plain LibreOffice on the deck with a hidden slide and on the print area', async ({
    expect,
  }) => {
    const [deck, sheet] = await Promise.all([
      plainSoffice('testPPT_various2.pptx'),
      plainSoffice('49156.xlsx'),
    ]);
    expect(deck).toBe(FILES['testPPT_various2.pptx']?.pages);
    expect(sheet).toBe(FILES['49156.xlsx']?.pages);
  }, 120_000);

  it('keeps the headings of a .docx as the outline and its hyperlinks as /Link annotations', async ({
    expect,
  }) => {
    const { pdf } = await convert('testWORD.docx');
    expect(pdftotext(pdf)).toMatch(/Sample Word Document Title[\s\S]*Heading Level 3/);
    const json = qpdfJson(pdf);
    type Outline = { title: string; kids: Outline[] };
    const titles = (items: Outline[], depth = 0): string[] =>
      items.flatMap((o) => [`${depth}:${o.title}`, ...titles(o.kids, depth + 1)]);
    expect(titles(json.outlines)).toEqual([
      '0:Heading Level 1',
      '1:Heading Level 2',
      '2:Heading Level 3',
    ]);
    const linkUris = annotations(json)
      .filter((a) => a['/Subtype'] === '/Link')
      .flatMap((a) => a['/A']?.['/URI'] ?? []); // two more go to bookmarks in it
    expect(new Set(linkUris)).toEqual(
      new Set(['u:http://poi.apache.org/', 'u:http://tika.apache.org/']),
    );
  }, 120_000);

  it('writes right-to-left Arabic that pdftotext reads back', async ({ expect }) => {
    const text = pdftotext((await convert('stress011.docx')).pdf);
    expect(text).toContain('حقوق الطفل'); // "rights of the child"
    expect(text).toContain('المتحدة'); // "united"
    expect(text).toContain('CRC/C/GC/20');
  }, 120_000);

  it('writes Japanese text and its ruby', async ({ expect }) => {
    const text = pdftotext((await convert('61470.docx')).pdf);
    expect(text).toContain('東京');
    expect(text).toContain('とうきょう');
  }, 120_000);

  it('leaves out the hidden slide and the speaker notes of a .pptx', async ({ expect }) => {
    const text = pdftotext((await convert('testPPT_various2.pptx')).pdf);
    expect(text).toContain('Slide2Header');
    expect(text).toContain('MASTERFOOTERMSG'); // the last slide, after the hidden one
    expect(text).not.toContain('This slide is hidden');
    expect(text).not.toContain('NotesForSlide2');
  }, 120_000);

  // Found by this corpus: the deck's review comments (PowerPoint's, with their author's name)
  // came out as sticky notes, /Text annotations with a /Popup, though plain LibreOffice leaves
  // them out: once export options are given, LibreOffice 7.4 takes ExportNotes as true unless
  // told, and officePdf.ts's Impress filter now tells it.
  it('keeps the review comments of a .pptx out of the PDF', async ({ expect }) => {
    const { pdf } = await convert('testPPT_various2.pptx');
    expect(annotations(qpdfJson(pdf)).map((a) => a['/Subtype'])).not.toContain('/Text');
  }, 120_000);

  it('converts the print area of a wide sheet, not its 136 columns', async ({ expect }) => {
    expect(pdftotext((await convert('49156.xlsx')).pdf)).toContain('Page 1 of 2');
  }, 120_000);

  it('converts a macro-enabled .docm: its text, no macro needed or run', async ({ expect }) => {
    expect(await sniffFile(join(REAL, 'SimpleMacro.docm'))).toMatchObject({
      kind: 'docx',
      macros: true,
    });
    expect(pdftotext((await convert('SimpleMacro.docm')).pdf)).toContain(
      'This is a macro word processing document',
    );
  }, 120_000);

  it('converts an .xlsx linked to a workbook that is not there, with its cached values', async ({
    expect,
  }) => {
    // Its row 3 is [1]Uses!$A$1, [1]Defines!NR_To_A1 and [1]!NR_Global_B2 of 56737.xlsx, not in
    // the corpus: LibreOffice shows the values Excel saved, and fetches nothing (no network in
    // the conversion either).
    expect(pdftotext((await convert('ref-56737.xlsx')).pdf)).toMatch(
      /This row is remote[\s\S]*Hello![\s\S]*Test A1[\s\S]*142/,
    );
  }, 120_000);

  it('refuses an encrypted .docx with reason password', async ({ expect }) => {
    expect(await sniffFile(join(REAL, ENCRYPTED))).toMatchObject({ encrypted: true });
    const failure = await twoAtATime(() =>
      officeToPdf(join(REAL, ENCRYPTED), join(dir, 'out', ENCRYPTED)),
    ).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ConversionFailed);
    expect(failure).toMatchObject({
      reason: 'password',
      message: 'The document is password-protected',
    });
  }, 120_000);

  it('converts an OOXML encrypted with the default password, which needs none', async ({
    expect,
  }) => {
    expect(await sniffFile(join(REAL, 'protected_agile.docx'))).toMatchObject({
      kind: 'ooxml-encrypted',
      encrypted: true,
    });
    expect(pdftotext((await convert('protected_agile.docx')).pdf)).toContain(
      'Agile protected document',
    );
  }, 120_000);
});
