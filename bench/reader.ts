// bench/reader: the reader beside a pdf.js viewer on a phone over slow 4G (issue 27).
//
//   npm run bench:reader [-- [--sessions 3] [--shots dir] file.pdf ...]
//                                    (files from ../shared/corpus by default)
//
// Each document is published to a daemon started here (the defaults a user gets) and processed.
// Then, in headless Chromium as a 3x phone (390x844, touch) with Chrome's own throttling (slow
// 4G: 1.6 Mbit/s down, 750 kbit/s up, 150 ms latency; the CPU 4x slower), in a fresh context
// each (nothing cached):
//   - the reader: from navigation to page 1's image shown, then a jump (a click on a link to page
//     N) to each of a few pages, from the click to that page readable (its text in place, or
//     its image, painted) and to its image shown;
//   - a pdf.js viewer (pdfjs-dist, this repository's dev dependency; the PDF served with Range
//     requests and no auto-fetch, as pdf.js's viewer does it; pages drawn at the phone's width and
//     at most 2 canvas pixels per CSS pixel, as the reader's images): the same, to the page
//     drawn on its canvas and painted.
// And the bytes: what each viewer fetched, and per page shown, the reader's image against the
// 2000 px image a 3x phone took before (its `max.jpg`, today's size). Ratios are within one run;
// each time is the median of a few sessions of each viewer, taken in turn (--sessions).
import { createReadStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { flipbook, ROOT, startDaemon } from '../test/support/cli.ts';
import { CORPUS } from '../test/support/corpus.ts';

const DEFAULT_FILES = [
  'vec_tracemonkey.pdf',
  'text_why3-manual.pdf',
  'img_GS9_Color_Management.pdf',
];
const JUMPS = [14, 40, 50];
const PHONE = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 3,
  isMobile: true,
  hasTouch: true,
  reducedMotion: 'reduce' as const,
};
const SLOW_4G = {
  offline: false,
  latency: 150,
  downloadThroughput: 200_000,
  uploadThroughput: 93_750,
};
const PDFJS = join(ROOT, 'node_modules', 'pdfjs-dist', 'build');

const seconds = (ms: number) => (ms / 1000).toFixed(2);
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};
const kb = (bytes: number) => `${Math.round(bytes / 1024)} KB`;

/** pdf.js's page and files, and the PDFs with Range, from a server of the benchmark's own. */
const viewerServer = async (pdfs: Map<string, string>) => {
  const page = `<!doctype html><meta name="viewport" content="width=device-width,initial-scale=1">
<style>body{margin:0}canvas{display:block}</style><canvas id="c"></canvas>
<script type="module">
import * as pdfjs from '/pdfjs/pdf.min.mjs';
pdfjs.GlobalWorkerOptions.workerSrc = '/pdfjs/pdf.worker.min.mjs';
const name = new URLSearchParams(location.search).get('pdf');
const doc = await pdfjs.getDocument({ url: '/pdf/' + name, disableAutoFetch: true, disableStream: true, rangeChunkSize: 65536 }).promise;
window.showPage = async (n) => {
  const page = await doc.getPage(n);
  const base = page.getViewport({ scale: 1 });
  const width = innerWidth;
  const density = Math.min(2, devicePixelRatio);
  const viewport = page.getViewport({ scale: (width / base.width) * density });
  const canvas = document.getElementById('c');
  canvas.width = Math.floor(viewport.width);
  canvas.height = Math.floor(viewport.height);
  canvas.style.width = width + 'px';
  await page.render({ canvas, canvasContext: canvas.getContext('2d'), viewport }).promise;
  await ${PAINTED};
  return performance.now();
};
window.firstPage = await window.showPage(1);
</script>`;
  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html' }).end(page);
      return;
    }
    const file = path.startsWith('/pdfjs/')
      ? join(PDFJS, basename(path))
      : path.startsWith('/pdf/')
        ? pdfs.get(decodeURIComponent(path.slice(5)))
        : undefined;
    const size = file ? (await stat(file).catch(() => null))?.size : undefined;
    if (!file || size === undefined) {
      res.writeHead(404).end();
      return;
    }
    const type = file.endsWith('.mjs') ? 'text/javascript' : 'application/pdf';
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (range) {
      const start = Number(range[1]);
      const end = Math.min(size - 1, range[2] ? Number(range[2]) : size - 1);
      res.writeHead(206, {
        'content-type': type,
        'content-range': `bytes ${start}-${end}/${size}`,
        'content-length': end - start + 1,
        'accept-ranges': 'bytes',
      });
      createReadStream(file, { start, end }).pipe(res);
      return;
    }
    res.writeHead(200, { 'content-type': type, 'content-length': size, 'accept-ranges': 'bytes' });
    createReadStream(file).pipe(res);
  };
  const server = createServer((req, res) => {
    serve(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => server.close() };
};

/** A fresh phone on slow 4G with a 4x slower CPU; counts the bytes of every response. */
const phone = async (browser: Browser) => {
  const context: BrowserContext = await browser.newContext(PHONE);
  const page: Page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', SLOW_4G);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  const bytes = new Map<string, number>();
  cdp.on('Network.responseReceived', (e) => bytes.set(e.requestId, 0));
  cdp.on('Network.loadingFinished', (e) => bytes.set(e.requestId, e.encodedDataLength));
  const urls = new Map<string, string>();
  cdp.on('Network.requestWillBeSent', (e) => urls.set(e.requestId, e.request.url));
  const fetched = (match: (url: string) => boolean = () => true) =>
    [...bytes].filter(([id]) => match(urls.get(id) ?? '')).reduce((sum, [, n]) => sum + n, 0);
  return { page, fetched, close: () => context.close() };
};

/**
 * When a page is on the screen: after the next frame is painted (a task queued from its
 * animation frame runs once the frame is done). Both viewers are timed to it: the reader's text
 * put in place and pdf.js's canvas drawn are on the screen only then.
 */
const PAINTED = 'new Promise((painted) => requestAnimationFrame(() => setTimeout(painted, 0)))';

/**
 * A jumped-to page can be read once its text in place (src/reader/client/textInPlace.ts) or its
 * image is painted: looked for at once after the click, then at each frame. Its image's own time
 * (decoded) is kept too.
 */
const readerReadable = (n: number) =>
  `new Promise((done) => { let readable = 0; let image = 0; let marked = false; const finish = () => { if (readable && image) done({ readable, image, started: window.__clicked }); }; const look = () => { const img = document.querySelector('#stage img[data-n="${n}"]'); const shown = img && img.complete && img.naturalWidth > 0; if (!marked && (shown || document.querySelector('#stage figure[data-n="${n}"] .words-in-place'))) { marked = true; ${PAINTED}.then(() => { readable = performance.now(); finish(); }); } if (shown) { image = performance.now(); finish(); } else requestAnimationFrame(look); }; look(); })`;

/**
 * A jump as a reader makes one: a click on a link into the book (the route of the links on a page,
 * the contents' entries and the search's results: src/reader/client/controls.ts), from the click.
 * (A page typed in the address, #page=N, comes through the browser's hashchange event, which
 * comes 10-40 ms later on this phone; a link's click is handled at once.)
 */
const linkTo = (n: number) =>
  `(() => { const a = document.createElement('a'); a.href = '#page=${n}'; a.dataset.page = '${n}'; a.hidden = true; document.body.append(a); const t = performance.now(); window.__clicked = t; a.click(); a.remove(); return t; })()`;

const readerShown = (n: number) =>
  `new Promise((done) => { const look = () => { const img = document.querySelector('#stage img[data-n="${n}"]'); if (img && img.complete && img.naturalWidth > 0) done(performance.now()); else requestAnimationFrame(look); }; look(); })`;

/**
 * Two pages the contents lead to (top-level entries from the middle of the list, not page 1 nor
 * one of JUMPS): the jumps a reader makes from the contents panel, whose text the reader has
 * ahead (the book's lines, or their words: src/reader/client/wordsAhead.ts).
 */
const contentsTargets = async (browser: Browser, url: string, skip: number[]) => {
  const { page, close } = await phone(browser);
  try {
    await page.goto(url, { waitUntil: 'domcontentloaded' });
    const pages = (await page.evaluate(
      `fetch(JSON.parse(document.getElementById('flipbook-data').textContent).document).then((r) => r.json()).then((d) => d.outline.map((e) => e.page))`,
    )) as (number | null)[];
    const usable = [...new Set(pages)].filter(
      (n): n is number => n !== null && n > 1 && !skip.includes(n),
    );
    const mid = Math.floor(usable.length / 2);
    return usable.slice(mid, mid + 2);
  } catch {
    return []; // no contents (or no document.json)
  } finally {
    await close();
  }
};

const measureReader = async (
  browser: Browser,
  url: string,
  jumps: number[],
  /** jumps made once the page 1 view is settled (the network idle): the lines (or words) ahead are in */
  later: number[] = [],
) => {
  const { page, fetched, close } = await phone(browser);
  try {
    await page.goto(url);
    const first = (await page.evaluate(readerShown(1))) as number;
    const shown: string[] = [
      await page
        .locator('#stage img[data-n="1"]')
        .evaluate((i) => (i as unknown as { currentSrc: string }).currentSrc),
    ];
    const jumpMs: number[] = [];
    const imageMs: number[] = [];
    for (const n of [...jumps, ...later]) {
      if (n === later[0]) await page.waitForLoadState('networkidle');
      // The click and the watch in one script, as pdf.js's jump is timed: none of the bench's
      // own round trips to the browser in the time. (--shots looks between the two instead.)
      let started = 0;
      if (shots) {
        started = (await page.evaluate(`${linkTo(n)}`)) as number;
        const words = `#stage figure[data-n="${n}"] .words-in-place`;
        await page.waitForSelector(words, { timeout: 5000 }).then(
          () => page.screenshot({ path: join(shots, `jump-${n}-words.png`) }),
          () => undefined,
        );
      }
      const ended = (await page.evaluate(
        shots ? readerReadable(n) : `(${linkTo(n)}, ${readerReadable(n)})`,
      )) as { readable: number; image: number; started: number };
      if (shots) await page.screenshot({ path: join(shots, `jump-${n}-image.png`) });
      else started = ended.started;
      jumpMs.push(ended.readable - started);
      imageMs.push(ended.image - started);
      shown.push(
        await page
          .locator(`#stage img[data-n="${n}"]`)
          .evaluate((i) => (i as unknown as { currentSrc: string }).currentSrc),
      );
    }
    return {
      first,
      jumpMs,
      imageMs,
      shown,
      total: fetched(),
      images: fetched((u) => u.endsWith('.jpg')),
      words: fetched((u) => u.endsWith('words.json') || u.endsWith('lines.json')),
    };
  } finally {
    await close();
  }
};

const measurePdfjs = async (browser: Browser, url: string, jumps: number[]) => {
  const { page, fetched, close } = await phone(browser);
  try {
    await page.goto(url);
    await page.waitForFunction('window.firstPage !== undefined', undefined, { timeout: 300_000 });
    const first = (await page.evaluate('window.firstPage')) as number;
    const afterFirst = fetched();
    const jumpMs: number[] = [];
    for (const n of jumps) {
      const started = (await page.evaluate('performance.now()')) as number;
      const ended = (await page.evaluate(`window.showPage(${n})`)) as number;
      jumpMs.push(ended - started);
    }
    return { first, jumpMs, total: fetched(), afterFirst };
  } finally {
    await close();
  }
};

const publish = async (daemonUrl: string, key: string, file: string) => {
  const form = new FormData();
  form.set('file', new Blob([await readFile(file)], { type: 'application/pdf' }), basename(file));
  const headers = { authorization: `Bearer ${key}` };
  const created = await fetch(`${daemonUrl}/api/v1/flipbooks`, {
    method: 'POST',
    headers,
    body: form,
  });
  const { flipbook_id, version_id } = (await created.json()) as {
    flipbook_id: string;
    version_id: string;
  };
  for (;;) {
    const res = await fetch(
      `${daemonUrl}/api/v1/flipbooks/${flipbook_id}/versions/${version_id}/status`,
      { headers },
    );
    const { status } = (await res.json()) as { status: string };
    if (status === 'done') break;
    if (status === 'error') throw new Error(`${file}: processing failed`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const book = (await (
    await fetch(`${daemonUrl}/api/v1/flipbooks/${flipbook_id}`, { headers })
  ).json()) as {
    url: string;
    pages: { position: number; img_max: string }[];
  };
  return { url: book.url, versionId: version_id, pages: book.pages };
};

// --shots <dir>: a screenshot of each jumped-to page when its words are in place, and when its
// image is (the run's times then include the first screenshot: look, do not measure).
const argv = process.argv.slice(2);
const shotsAt = argv.indexOf('--shots');
const shots = shotsAt >= 0 ? argv.splice(shotsAt, 2)[1] : undefined;
// --sessions <n>: sessions of each viewer per document (fresh each), the times their medians: a
// jump's time on a phone moves by a frame or two from one session to the next (0.03-0.11 s).
const sessionsAt = argv.indexOf('--sessions');
const sessions = sessionsAt >= 0 ? Math.max(1, Number(argv.splice(sessionsAt, 2)[1]) || 1) : 3;
const named = argv;
const files = named.length > 0 ? named : DEFAULT_FILES;
const dataDir = await mkdtemp(join(tmpdir(), 'bench-reader-'));
const store = ['--data-dir', dataDir];
await flipbook(['workspace', 'create', 'bench', ...store]);
const key = JSON.parse(
  (await flipbook(['key', 'create', '--workspace', 'bench', '--json', ...store])).stdout,
).key;
const daemon = await startDaemon([...store, '--rate-limit', '0']);
const pdfs = new Map(files.map((f) => [f, resolve(CORPUS, f)]));
const viewer = await viewerServer(pdfs);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
try {
  console.log(
    'document                         pages  first page: reader  pdf.js  ratio   jumps (reader / pdf.js)                    bytes: reader  pdf.js   image/page shown  today (max.jpg)  share',
  );
  for (const file of files) {
    const book = await publish(daemon.url, key, pdfs.get(file) as string);
    const count = book.pages.length;
    const fixed = [...new Set(JUMPS.map((n) => Math.min(n, count)))].filter((n) => n > 1);
    const contents = await contentsTargets(browser, book.url, fixed);
    const jumps = [...fixed, ...contents];
    // Sessions of each viewer in turn; the times are their medians, the bytes the first's.
    const readers: Awaited<ReturnType<typeof measureReader>>[] = [];
    const viewers: Awaited<ReturnType<typeof measurePdfjs>>[] = [];
    for (let i = 0; i < sessions; i++) {
      readers.push(await measureReader(browser, book.url, fixed, contents));
      viewers.push(
        await measurePdfjs(browser, `${viewer.url}/?pdf=${encodeURIComponent(file)}`, jumps),
      );
    }
    const reader = {
      ...(readers[0] as (typeof readers)[number]),
      first: median(readers.map((r) => r.first)),
      jumpMs: jumps.map((_, j) => median(readers.map((r) => r.jumpMs[j] ?? 0))),
      imageMs: jumps.map((_, j) => median(readers.map((r) => r.imageMs[j] ?? 0))),
    };
    const pdfjs = {
      ...(viewers[0] as (typeof viewers)[number]),
      first: median(viewers.map((r) => r.first)),
      jumpMs: jumps.map((_, j) => median(viewers.map((r) => r.jumpMs[j] ?? 0))),
    };
    // Per page shown: the image the reader showed, against the 2000 px one a 3x phone took before.
    const sizeOf = async (url: string) =>
      Number((await fetch(url, { method: 'HEAD' })).headers.get('content-length') ?? 0);
    const shownBytes = await Promise.all(reader.shown.map(sizeOf));
    const shownPages = [1, ...jumps];
    const todayBytes = await Promise.all(
      shownPages.map((n) => sizeOf(book.pages.find((p) => p.position === n)?.img_max ?? '')),
    );
    const perPage = shownBytes.reduce((a, b) => a + b, 0) / shownBytes.length;
    const todayPerPage = todayBytes.reduce((a, b) => a + b, 0) / todayBytes.length;
    const jumpWords = jumps
      .map(
        (n, i) =>
          `${n}: ${seconds(reader.jumpMs[i] ?? 0)}/${seconds(pdfjs.jumpMs[i] ?? 0)} s (${((reader.jumpMs[i] ?? 0) / (pdfjs.jumpMs[i] || 1)).toFixed(2)}; image ${seconds(reader.imageMs[i] ?? 0)} s)`,
      )
      .join(', ');
    console.log(
      [
        file.padEnd(32),
        String(count).padStart(5),
        `${seconds(reader.first)} s`.padStart(19),
        `${seconds(pdfjs.first)} s`.padStart(7),
        (pdfjs.first / reader.first).toFixed(2).padStart(6),
        `  ${jumpWords}`.padEnd(44),
        kb(reader.total).padStart(14),
        kb(pdfjs.total).padStart(7),
        kb(perPage).padStart(18),
        kb(todayPerPage).padStart(16),
        (perPage / todayPerPage).toFixed(2).padStart(6),
        `  text in place: ${kb(reader.words)}`,
      ].join(' '),
    );
  }
  console.log(
    [
      `times: the medians of ${sessions} sessions of each viewer (fresh, in turn); bytes: the first's.`,
      'first page: from navigation to page 1 shown (the reader: its image decoded; pdf.js: drawn);',
      'ratio: pdf.js / reader (the target: at least 2). jumps: from a click on a link to page N',
      '(pdf.js: getPage + render) to that page readable, reader / pdf.js seconds (target: ratio',
      'at most 1.2); the',
      "reader's page is readable once its words are drawn in place or its image is decoded, and",
      "its image's own time follows; the last two jumps (when the book has contents) go to",
      "contents' entries, once page 1's view is settled (the reader fetched the book's lines, or",
      'their words, ahead). text in place: the lines.json and words.json the reader fetched.',
      'bytes: everything each fetched in the session. image/page shown: the image the reader',
      'showed, per page; today: the 2000 px max.jpg a 3x phone took before; share: their ratio',
      '(target: at most 0.40).',
    ].join('\n'),
  );
} finally {
  await browser.close();
  viewer.close();
  await daemon.stop();
  await rm(dataDir, { recursive: true, force: true });
}
