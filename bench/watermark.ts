// bench/watermark: what a link's `watermark` costs a reader's first page (issue 44: within 10 %
// of an unmarked one), and a later page.
//
//   node bench/watermark.ts [--readers 12]
//
// One daemon (embedded store, the defaults but the rate limit), a links-only book, two links
// that ask for an address: one marks its pages, one does not. Each round a new reader gives an
// address at each link (alternating which goes first), then does what the reader does for its
// first page: GET the link's page, then page 1's min.jpg and mid.jpg at once; the time from the
// page's request to the last image byte is that reader's first page (the browser's own drawing
// is the same for both, and left out: the ratio is the server's, the harder one to meet). A new
// reader is the worst case: their mark is drawn for the first time. Then page 2's mid.jpg, with
// the mark kept. Then the same in Chromium (a new browser context per reader, the reader's cookie
// set): from navigation to page 1's image drawn (naturalWidth > 0), what a reader waits for.
// Prints medians, their ratios, and the daemon's CPU per first page.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { publishAndWait, startBenchDaemon } from './benchDaemon.ts';
import { cpuMs } from './cpuTime.ts';

const ROOT = resolve(import.meta.dirname, '..');
const PDF = join(ROOT, '../shared/corpus/text_multicolumn.pdf');
const { values } = parseArgs({ options: { readers: { type: 'string', default: '12' } } });
const READERS = Number(values.readers);

const { key, daemon, url } = await startBenchDaemon('watermark');

try {
  const api = `${url}/api/v1`;
  const auth = { authorization: `Bearer ${key}` };
  const made = await publishAndWait(url, key, readFileSync(PDF), 'links');
  const newLink = async (watermark: boolean) =>
    (
      (await (
        await fetch(`${api}/flipbooks/${made.flipbook_id}/links`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ label: 'bench', identify: 'email', watermark }),
        })
      ).json()) as { url: string }
    ).url;
  const links = { plain: await newLink(false), marked: await newLink(true) };

  const identify = async (link: string, email: string) => {
    const given = await fetch(link, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ step: 'email', email }).toString(),
    });
    return (given.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  };
  const firstPage = async (link: string, n: number) => {
    const cookie = await identify(link, `reader${n}@bench.example`);
    const cpu0 = await cpuMs(daemon.pid);
    const started = performance.now();
    const html = await (await fetch(link, { headers: { cookie } })).text();
    const root = /(\/a\/[A-Za-z0-9._-]+\/pages\/[0-9a-f-]+\/)/.exec(html)?.[1];
    if (!root) throw new Error('no page URL in the reader');
    const image = async (file: string) => {
      const res = await fetch(`${url}${root}${file}`);
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${file}: ${res.status}`);
    };
    await Promise.all([image('1/min.jpg'), image('1/mid.jpg')]);
    const first = performance.now() - started;
    const cpu = (await cpuMs(daemon.pid)) - cpu0;
    const later = performance.now();
    await image('2/mid.jpg');
    return { first, cpu, later: performance.now() - later };
  };

  // Warm-up: a reader at each (processes, connections, the first render of anything).
  await firstPage(links.plain, 0);
  await firstPage(links.marked, 0);
  type Run = { first: number; cpu: number; later: number };
  const runs: Record<'plain' | 'marked', Run[]> = { plain: [], marked: [] };
  for (let n = 1; n <= READERS; n++) {
    const order = n % 2 === 0 ? (['plain', 'marked'] as const) : (['marked', 'plain'] as const);
    for (const name of order) runs[name].push(await firstPage(links[name], n));
  }
  const median = (xs: number[]) =>
    [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? 0;
  const rows = Object.entries(runs).map(([name, r]) => ({
    name,
    firstPageMs: median(r.map((x) => x.first)).toFixed(1),
    daemonCpuMs: median(r.map((x) => x.cpu)).toFixed(1),
    laterPageMs: median(r.map((x) => x.later)).toFixed(1),
  }));
  console.table(rows);
  const ratio = median(runs.marked.map((x) => x.first)) / median(runs.plain.map((x) => x.first));
  const later = median(runs.marked.map((x) => x.later)) / median(runs.plain.map((x) => x.later));
  console.log(
    `server: first page, a new reader: marked/plain ${ratio.toFixed(2)}; a later page: ${later.toFixed(2)}`,
  );

  // In Chromium: navigation to page 1's image drawn, a new reader each time.
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu'],
  });
  try {
    const drawn = async (link: string, n: number) => {
      const [name, value] = (await identify(link, `browser${n}@bench.example`)).split('=');
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      await context.addCookies([{ name: name ?? '', value: value ?? '', url: link }]);
      const page = await context.newPage();
      const started = performance.now();
      await page.goto(link);
      await page.waitForFunction("(document.querySelector('.stage img')?.naturalWidth ?? 0) > 0");
      const ms = performance.now() - started;
      await context.close();
      return ms;
    };
    await drawn(links.plain, 0);
    await drawn(links.marked, 0);
    const times: Record<'plain' | 'marked', number[]> = { plain: [], marked: [] };
    for (let n = 1; n <= READERS; n++) {
      const order = n % 2 === 0 ? (['plain', 'marked'] as const) : (['marked', 'plain'] as const);
      for (const name of order) times[name].push(await drawn(links[name], n));
    }
    const plain = median(times.plain);
    const marked = median(times.marked);
    console.log(
      `Chromium, first page drawn: plain ${plain.toFixed(0)} ms, marked ${marked.toFixed(0)} ms: ${(marked / plain).toFixed(2)} (target ≤ 1.10)`,
    );
  } finally {
    await browser.close();
  }
} finally {
  daemon.kill('SIGTERM');
}
