// The PDF adapter when the ground moves under it: its output directory removed mid-render (a
// version deleted), and a planted `pdfinfo` where the old wrapper directory used to be.
import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { limitedDir, wrapperDirs } from '../../src/pdf/poppler.ts';
import { DEFAULT_RENDER_OPTIONS, renderPdf } from '../../src/pdf/renderPdf.ts';
import { corpus } from '../support/corpus.ts';
import { scratchDirs } from '../support/scratchDirs.ts';

const scratch = scratchDirs('flipbook-chaos-');

describe('renderPdf with its output removed mid-render', () => {
  it('rejects once as a storage failure, every conversion under way awaited (no unhandled rejection)', async () => {
    const out = join(await scratch(), 'version');
    let pages = 0;
    let removal: Promise<void> | null = null;
    const outcome = await renderPdf(corpus('text_why3-manual.pdf'), out, {
      ...DEFAULT_RENDER_OPTIONS,
      onPage: () => {
        // as a deletion does: the whole directory goes while pages are being derived
        // (retried: the render is still writing files into it while rm walks the tree)
        if (++pages === 3) {
          removal = rm(out, { recursive: true, force: true, maxRetries: 10, retryDelay: 20 });
        }
      },
    }).then(
      () => 'resolved',
      (error: Error) =>
        error.name === 'StorageFailure' ? error.name : `${error.name}: ${error.message}`,
    );
    await removal;
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(pages).toBeLessThan(184);
    // Files gone from under the render are the disk's doing, not the document's: tried again
    // later (or dropped, when the version was deleted), never recorded as a bad PDF.
    expect(outcome).toBe('StorageFailure');
    // vitest fails the run on an unhandled rejection: reaching here without one is the point.
  }, 120_000);
});

describe('the poppler wrappers', () => {
  const limits = { memoryMb: 1536, cpuSeconds: 600 };

  it('live in a fresh private directory of ours, never one found by name', async () => {
    await limitedDir(limits);
    const dir = wrapperDirs.at(-1) ?? '';
    const info = statSync(dir);
    expect(info.mode & 0o777).toBe(0o700);
    expect(info.uid).toBe(process.getuid?.());
    expect(statSync(join(dir, 'pdfinfo')).mode & 0o777).toBe(0o700);
  });

  it('never run a pdfinfo planted in the old predictable folder', async () => {
    // The folder earlier versions used and reused without checking who made it.
    const tag = createHash('sha256').update(JSON.stringify(limits)).digest('hex').slice(0, 12);
    const planted = join(tmpdir(), `flipbook-poppler-${process.getuid?.() ?? 0}-${tag}`);
    const marker = join(await scratch(), 'planted-ran');
    await rm(planted, { recursive: true, force: true });
    await mkdir(planted, { recursive: true });
    await chmod(planted, 0o777);
    for (const tool of ['pdfinfo', 'pdftoppm', 'pdftotext']) {
      await writeFile(join(planted, tool), `#!/bin/sh\ntouch ${marker}\nexit 1\n`, { mode: 0o777 });
    }
    try {
      const out = join(await scratch(), 'version');
      const result = await renderPdf(corpus('text_multicolumn.pdf'), out, DEFAULT_RENDER_OPTIONS);
      expect(result.pages.length).toBeGreaterThan(0);
      expect(existsSync(marker)).toBe(false);
    } finally {
      await rm(planted, { recursive: true, force: true });
    }
  }, 60_000);
});
