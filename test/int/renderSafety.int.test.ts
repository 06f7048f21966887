// The safety nets around poppler, each made to fire by a stand-in for a poppler tool: one that
// hangs on a page, crashes, runs into the CPU cap, or needs more memory than the cap allows. The
// stand-ins live in a folder of their own, given to the wrappers as `toolDir` (the real tools
// are used for the rest), so the caps the wrappers set are the ones under test. The greedy pdfinfo
// is a python3 script (installed by scripts/setup.sh).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inspectPdf } from '../../src/pdf/inspectPdf.ts';
import { type ProcessLimits, runPoppler } from '../../src/pdf/poppler.ts';
import {
  DEFAULT_RENDER_OPTIONS,
  RenderFailure,
  type RenderOptions,
  renderPdf,
} from '../../src/pdf/renderPdf.ts';
import { corpus } from '../support/corpus.ts';

const TOOLS = ['pdfinfo', 'pdftoppm', 'pdftotext', 'pdftocairo', 'qpdf'];
const PDF = corpus('vec_tracemonkey.pdf'); // 14 Letter pages
const made: string[] = [];

afterAll(async () => {
  await Promise.all(made.map((d) => rm(d, { recursive: true, force: true })));
});

/** A folder of tools: the real ones, except those given as scripts. */
const tools = async (standIns: Record<string, string>) => {
  const dir = await mkdtemp(join(tmpdir(), 'flipbook-standin-'));
  made.push(dir);
  for (const tool of TOOLS) {
    const script = standIns[tool] ?? `#!/bin/sh\nexec /usr/bin/${tool} "$@"\n`;
    await writeFile(join(dir, tool), script);
    await chmod(join(dir, tool), 0o755);
  }
  return dir;
};

/**
 * pdftoppm that renders like the real one up to the page before `page`, then hangs on `page`
 * (a sleep with a tag of its own, so the test can tell whether it was left running).
 */
const hangsOn = (page: number, tag: number) => `#!/bin/bash
args=("$@"); first=1; last=100000
for ((i = 0; i < \${#args[@]}; i++)); do
  case "\${args[i]}" in -f) first=\${args[i+1]};; -l) last=\${args[i+1]}; at=$((i+1));; esac
done
if (( first <= ${page} && last >= ${page} )); then
  if (( first < ${page} )); then args[at]=$(( ${page} - 1 )); /usr/bin/pdftoppm "\${args[@]}"; fi
  exec sleep ${tag}
fi
exec /usr/bin/pdftoppm "$@"
`;

const sleepers = (tag: number) =>
  readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8') === `sleep\0${tag}\0`;
      } catch {
        return false;
      }
    });

const render = async (limits: ProcessLimits, overrides: Partial<RenderOptions> = {}) => {
  const out = join(await mkdtemp(join(tmpdir(), 'flipbook-safety-')), 'version');
  made.push(out);
  const failure = await renderPdf(PDF, out, {
    ...DEFAULT_RENDER_OPTIONS,
    limits,
    // Only the net under test may stop it: the document's own limit is far away.
    documentTimeoutMs: () => 10 * 60_000,
    ...overrides,
  }).then(
    () => null,
    (error: unknown) => error,
  );
  expect(failure).toBeInstanceOf(RenderFailure);
  // The render's scratch folder (poppler's files not yet moved into place) is gone.
  const left = await readdir(out).catch(() => [] as string[]);
  expect(left).not.toContain('work');
  return (failure as Error).message;
};

const LIMITS = DEFAULT_RENDER_OPTIONS.limits;

describe('the watchdog: no new page for pageTimeoutMs', () => {
  // Pages 1 (a range's first page), 2 (the first of the long ranges, after page 1's own) and 12
  // (deep into a range, after many pages went well) each hang in turn.
  it.each([1, 2, 12])(
    'fires for page %i, names it, and leaves no renderer running',
    async (page) => {
      const tag = 100_000 + Math.floor(Math.random() * 900_000); // no other run has it
      const toolDir = await tools({ pdftoppm: hangsOn(page, tag) });
      const message = await render({ ...LIMITS, toolDir }, { pageTimeoutMs: 1500 });
      expect(message).toBe(`Page ${page} took longer than 1.5 s to render`);
      expect(sleepers(tag)).toEqual([]);
    },
    60_000,
  );
});

describe('renderFailure.explain, reached by tools that fail for real', () => {
  it('a renderer that crashes (SIGSEGV)', async () => {
    const toolDir = await tools({ pdftoppm: '#!/bin/sh\nkill -SEGV $$\n' });
    expect(await render({ ...LIMITS, toolDir })).toBe(
      'The renderer crashed on this PDF; the file is probably damaged',
    );
  }, 60_000);

  it('a renderer that spins until the CPU cap (ulimit -t) stops it', async () => {
    const toolDir = await tools({ pdftoppm: '#!/bin/bash\nwhile :; do :; done\n' });
    expect(await render({ memoryMb: 1536, cpuSeconds: 1, toolDir })).toBe(
      'Rendering used more CPU time than allowed',
    );
  }, 60_000);

  it('a renderer that needs more memory than the cap (ulimit -v) allows', async () => {
    // The real pdftoppm at 1200 dpi: a Letter page is a 400 MB bitmap, over a 300 MB cap. poppler
    // then says "Out of memory" and exits 0 with a 1x1 image.
    const toolDir = await tools({
      pdftoppm: `#!/bin/bash
args=()
while (( $# )); do
  case "$1" in -scale-to) shift; args+=(-r 1200);; *) args+=("$1");; esac; shift
done
exec /usr/bin/pdftoppm "\${args[@]}"
`,
    });
    expect(await render({ memoryMb: 300, cpuSeconds: 600, toolDir })).toMatch(
      /^Rendering needed more memory than allowed \(page \d+\)$/,
    );
  }, 60_000);

  it("a renderer the kernel's out-of-memory killer ends (SIGKILL)", async () => {
    const toolDir = await tools({ pdftoppm: '#!/bin/sh\nkill -KILL $$\n' });
    expect(await render({ ...LIMITS, toolDir })).toBe('Rendering needed more memory than allowed');
  }, 60_000);

  it('a pdfinfo that crashes, before any rendering', async () => {
    const toolDir = await tools({ pdfinfo: '#!/bin/sh\nkill -SEGV $$\n' });
    expect(await render({ ...LIMITS, toolDir })).toBe(
      'The PDF reader crashed on this PDF; the file is probably damaged',
    );
  }, 60_000);
});

/**
 * pdfinfo that needs 1 GB: as poppler does when an allocation fails, it says "Out of memory" and
 * aborts. Without a cap it would succeed, and the upload would be taken as a 1-page PDF.
 */
const GREEDY_PDFINFO = `#!/usr/bin/python3
import os, sys
try:
    hog = bytearray(1 << 30)
except MemoryError:
    sys.stderr.write("Out of memory\\n")
    sys.stderr.flush()
    os.abort()
print("Pages:          1")
`;

describe('inspectPdf (the upload check) under the same caps as the renderer', () => {
  it('reads a good PDF', async () => {
    expect(await inspectPdf(PDF)).toEqual({ kind: 'readable', pages: 14 });
  });

  it('says a PDF of no pages (or an unreadable page tree) has none, not what pdfinfo says of it (a bad page range)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'flipbook-nopages-'));
    made.push(dir);
    const empty = join(dir, 'empty.pdf');
    execFileSync('qpdf', ['--empty', empty]);
    const reason = {
      kind: 'unreadable',
      reason: 'the PDF has no pages, or its page tree cannot be read',
    };
    expect(await inspectPdf(empty)).toEqual(reason);
    // and the corpus's damaged files that poppler reads as no pages (a page count past the
    // objects, a negative one)
    for (const file of [
      'bad_issue9418.pdf',
      'bad_poppler-85140-0.pdf',
      'bad_poppler-67295-0.pdf',
    ]) {
      expect(await inspectPdf(corpus(file)), file).toEqual(reason);
    }
  });

  it.each([
    {
      what: 'whose reading needs more memory than the cap',
      pdfinfo: GREEDY_PDFINFO,
      limits: { memoryMb: 300, cpuSeconds: 600 },
      reason: 'reading it needed more memory than allowed',
    },
    {
      what: 'whose reading spins until the CPU cap',
      pdfinfo: '#!/bin/bash\nwhile :; do :; done\n',
      limits: { memoryMb: 1536, cpuSeconds: 1 },
      reason: 'reading it used more CPU time than allowed',
    },
    {
      what: 'that crashes the reader',
      pdfinfo: '#!/bin/sh\nkill -SEGV $$\n',
      limits: LIMITS,
      reason: 'it crashed the PDF reader; it is probably damaged',
    },
    {
      // pdfinfo exits 0 then: its wrapper makes that a failure, as what it printed is not to be
      // trusted.
      what: 'whose reading printed a page count after an allocation failed',
      pdfinfo: '#!/bin/sh\necho "Pages:          1"\necho "Out of memory" >&2\n',
      limits: LIMITS,
      reason: 'reading it needed more memory than allowed',
    },
  ])('refuses a file $what', async ({ pdfinfo, limits, reason }) => {
    const toolDir = await tools({ pdfinfo });
    expect(await inspectPdf(PDF, { limits: { ...limits, toolDir }, timeoutMs: 15_000 })).toEqual({
      kind: 'unreadable',
      reason,
    });
  });

  it('gives up on a reader that hangs, and leaves it not running', async () => {
    const tag = 100_000 + Math.floor(Math.random() * 900_000);
    const toolDir = await tools({ pdfinfo: `#!/bin/sh\nexec sleep ${tag}\n` });
    expect(await inspectPdf(PDF, { limits: { ...LIMITS, toolDir }, timeoutMs: 500 })).toEqual({
      kind: 'unreadable',
      reason: 'reading the PDF took too long',
    });
    expect(sleepers(tag)).toEqual([]);
  });
});

describe("a tool's stdout, held by its wrapper until the tool ends", () => {
  /** `tool` on PDF (from `toolDir` when given), its caller reading 1 KiB at the most. */
  const runOnPdf = (tool: 'pdfinfo' | 'pdftotext', toolDir?: string) =>
    runPoppler(
      toolDir === undefined ? LIMITS : { ...LIMITS, toolDir },
      { tool, file: PDF, options: {} },
      { signal: AbortSignal.timeout(30_000), maxBytes: 1024 },
    );

  it('stops a tool that writes more than any caller reads, and that is a failure', async () => {
    const toolDir = await tools({ pdftotext: '#!/bin/sh\nexec yes flood\n' });
    await expect(runOnPdf('pdftotext', toolDir)).rejects.toThrow(
      /^pdftotext wrote more than \d+ bytes/,
    );
  });

  it('is a failure beyond what this caller reads', async () => {
    await expect(runOnPdf('pdftotext')).rejects.toThrow(/^pdftotext wrote more than 1024 bytes/);
  });

  it('is not passed on when the tool failed after printing (node-poppler would resolve with it)', async () => {
    const toolDir = await tools({ pdfinfo: '#!/bin/sh\necho "Pages: 3"\necho oops >&2\nexit 1\n' });
    await expect(runOnPdf('pdfinfo', toolDir)).rejects.toMatchObject({
      name: 'ToolFailure',
      code: 1,
      stderr: 'oops',
    });
  });
});
