// bench/derive: what each step of processing costs a page, against the page's plain render.
//
//   npm run bench:derive [-- file.pdf ...]     (files from ../shared/corpus by default)
//
// For each document's first pages, in one run and in CPU time per page (one thread, so the numbers
// do not depend on what else the machine runs): (a) `pdftoppm -jpeg -scale-to 2000`, the
// benchmark's baseline; then the sharp steps the service could take to make mid and min from that
// render, and pdftotext. Each is printed as a share of (a). On a machine with C cores the service can
// only finish within (a)'s wall time if all its work fits in C x (a): the last lines add up the
// chosen steps and print that floor.
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { CORPUS } from '../test/support/corpus.ts';
import { cpuMs } from './cpuTime.ts';

const DEFAULT_FILES = ['text_why3-manual.pdf', 'vec_asymptote.pdf', 'img_GS9_Color_Management.pdf'];
const PAGES = 40;
const MAX = 2000;
const MID = 1000;
const MIN = 300;
const JPEG = { quality: 82, optimiseCoding: false } as const;

const run = (command: string, args: string[]) =>
  new Promise<void>((done, fail) => {
    const child = spawn(command, args, { stdio: 'ignore' });
    child.on('exit', (code) => (code === 0 ? done() : fail(new Error(`${command}: ${code}`))));
  });

/** CPU ms per page of a poppler command over the first pages (its process's CPU time). */
const popplerPerPage = async (command: string, args: string[], pages: number) => {
  const before = await cpuMs();
  await run(command, args);
  return ((await cpuMs()) - before) / pages;
};

/** CPU ms per page of a sharp step over every page file (this process's CPU time). */
const sharpPerPage = async (files: string[], step: (file: string) => Promise<unknown>) => {
  const before = process.cpuUsage();
  for (const file of files) await step(file);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / files.length;
};

const measure = async (pdf: string) => {
  const dir = await mkdtemp(join(tmpdir(), 'bench-derive-'));
  try {
    const range = ['-f', '1', '-l', String(PAGES)];
    const scale = ['-scale-to', String(MAX)];
    const jpeg = await popplerPerPage(
      'pdftoppm',
      ['-jpeg', ...scale, ...range, pdf, join(dir, 'p')],
      PAGES,
    );
    const text = await popplerPerPage('pdftotext', [...range, pdf, join(dir, 't.txt')], PAGES);
    const files = (await readdir(dir)).filter((f) => f.endsWith('.jpg')).map((f) => join(dir, f));
    const pages = files.length;
    const mid = (f: string) => `${f}.mid`;
    const out = join(dir, 'out.jpg');
    const fit = { fit: 'inside' } as const;
    const steps: [string, number, boolean][] = [
      ['(a) pdftoppm render + JPEG encode', jpeg, true],
      [
        'decode max (whole page, to memory)',
        await sharpPerPage(files, (f) => sharp(f).raw().toBuffer()),
        false,
      ],
      [
        'mid: 1/2-scale decode + lanczos3 + encode',
        await sharpPerPage(files, (f) => sharp(f).resize(MID, MID, fit).jpeg(JPEG).toFile(out)),
        false,
      ],
      [
        'mid: full decode + lanczos3 + encode (chosen)',
        await sharpPerPage(files, (f) =>
          sharp(f)
            .resize(MID, MID, { ...fit, fastShrinkOnLoad: false })
            .jpeg(JPEG)
            .toFile(mid(f)),
        ),
        true,
      ],
      [
        'mid: full decode + cubic + encode',
        await sharpPerPage(files, (f) =>
          sharp(f)
            .resize(MID, MID, { ...fit, kernel: 'cubic', fastShrinkOnLoad: false })
            .jpeg(JPEG)
            .toFile(out),
        ),
        false,
      ],
      [
        'mid: full decode + linear + encode (softer text)',
        await sharpPerPage(files, (f) =>
          sharp(f)
            .resize(MID, MID, { ...fit, kernel: 'linear', fastShrinkOnLoad: false })
            .jpeg(JPEG)
            .toFile(out),
        ),
        false,
      ],
      [
        'min from mid (chosen)',
        await sharpPerPage(files, (f) =>
          sharp(mid(f)).resize(MIN, MIN, fit).jpeg(JPEG).toFile(out),
        ),
        true,
      ],
      [
        'min from mid, full decode + linear',
        await sharpPerPage(files, (f) =>
          sharp(mid(f))
            .resize(MIN, MIN, { ...fit, kernel: 'linear', fastShrinkOnLoad: false })
            .jpeg(JPEG)
            .toFile(out),
        ),
        false,
      ],
      [
        'min: 1/8-scale decode of max',
        await sharpPerPage(files, (f) => sharp(f).resize(250, 250, fit).jpeg(JPEG).toBuffer()),
        false,
      ],
      ['check size (header)', await sharpPerPage(files, (f) => sharp(f).metadata()), true],
      ['pdftotext', text, true],
    ];
    return { pages, jpeg, steps };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

sharp.concurrency(1);
const cores = availableParallelism();
const files = process.argv.slice(2).length > 0 ? process.argv.slice(2) : DEFAULT_FILES;
for (const name of files) {
  const { pages, jpeg, steps } = await measure(resolve(CORPUS, name));
  console.log(`\n${name} (first ${pages} pages), CPU ms per page and share of (a):`);
  for (const [label, ms, chosen] of steps) {
    console.log(
      `  ${chosen ? '*' : ' '} ${label.padEnd(46)} ${ms.toFixed(1).padStart(6)} ms ${(ms / jpeg).toFixed(2).padStart(6)}`,
    );
  }
  const total = steps.filter(([, , chosen]) => chosen).reduce((sum, [, ms]) => sum + ms, 0);
  console.log(
    `    service work (* steps) ${total.toFixed(1)} ms = ${(total / jpeg).toFixed(2)} x (a); ` +
      `on ${cores} cores at full use (b)/(a) >= ${(total / jpeg / cores).toFixed(2)}`,
  );
}
