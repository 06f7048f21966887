// Processing's first step for an upload that is not a PDF (issue 45): the PDF every later step
// reads is made here, kept in the store beside the original (by its own checksum) and recorded
// (VersionConverted), so an attempt after a crash renders the same PDF instead of converting
// again. LibreOffice makes office documents' (one sandboxed process each, src/pdf/officePdf.ts),
// PDFKit over sharp images' (src/pdf/imagesPdf.ts).
// Conversion is CPU work like rendering: it holds one render slot (src/pdf/renderSlots.ts) while
// it runs, so conversions and renders share the cores fairly, and a long conversion does not
// make readers' pages wait (they come first by priority).

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import sharp from 'sharp';
import type { RecordConversion } from '../domain/flipbook/decide.ts';
import { isImageType, isOfficeType } from '../pdf/documentTypes.ts';
import { ImageUnreadable, imagesToPdf } from '../pdf/imagesPdf.ts';
import { ConversionFailed, officeToPdf } from '../pdf/officePdf.ts';
import { QUALITY } from '../pdf/renditions.ts';
import { listZip, ZipDamaged } from '../pdf/zipImages.ts';
import type { Job } from './jobQueue.ts';
import { DEFAULT_CONVERT, type ProcessDeps } from './processDeps.ts';

/**
 * Makes the PDF of `job`'s upload, keeps it and records it; resolves with its checksum. Rejects
 * with a ConversionFailed for what the document makes of the converter (in words for its
 * owner), and with the store's or the disk's own errors otherwise (processing defers those).
 */
export const convertVersion = async (
  deps: ProcessDeps,
  job: Job,
  signal: AbortSignal,
  record: (command: RecordConversion) => Promise<unknown>,
  /**
   * an image book's renditions are made on the way, into this folder (the caller's, removed by
   * it once the pages are rendered: src/pdf/imageRange.ts takes them from there)
   */
  prerendered?: string,
): Promise<string> => {
  const slot = await deps.render.slots.job().acquire('normal', signal);
  const dir = await mkdtemp(join(tmpdir(), `flipbook-convert-${process.pid}-`));
  const original = await deps.blobs.localOriginal(job.checksum).catch((error: unknown) => {
    slot.release();
    void rm(dir, { recursive: true, force: true }).catch(() => {});
    throw error;
  });
  try {
    const started = performance.now();
    const made = await makePdf(deps, job.file_type, original.path, dir, signal, prerendered);
    signal.throwIfAborted();
    const { checksum, size } = await keep(deps, made.pdf);
    deps.log.info(
      {
        versionId: job.version_id,
        fileType: job.file_type,
        ms: Math.round(performance.now() - started),
      },
      'version converted',
    );
    await record({
      type: 'RecordConversion',
      data: {
        versionId: job.version_id,
        pdf: { checksum, size },
        converter: made.converter,
        now: deps.clock.now(),
      },
    });
    return checksum;
  } finally {
    slot.release();
    await original.release().catch(() => {});
    await rm(dir, { recursive: true, force: true }).catch(() => {});
  }
};

const makePdf = async (
  deps: ProcessDeps,
  fileType: string,
  input: string,
  dir: string,
  signal: AbortSignal,
  prerendered?: string,
): Promise<{ pdf: string; converter: string }> => {
  if (isImageType(fileType)) {
    const pdf = join(dir, 'images.pdf');
    try {
      // A folder of images: its images' names, in page order, from its directory.
      let zipNames: string[] | undefined;
      if (fileType === 'zip') {
        const listed = await listZip(input);
        if (listed.kind !== 'images') {
          throw new ImageUnreadable(
            listed.kind === 'refused' || listed.kind === 'unreadable'
              ? listed.why
              : 'The ZIP file holds no images',
          );
        }
        zipNames = listed.names;
      }
      // The renditions rendered before `done`, largest first (each made from the one before).
      const sizes = [...deps.render.renditions]
        .map((name) => ({ name, longSide: deps.render.sizes[name], quality: QUALITY[name] }))
        .sort((a, b) => b.longSide - a.longSide);
      await imagesToPdf(input, pdf, {
        signal,
        scratch: dir,
        ...(zipNames ? { zipNames } : {}),
        ...(prerendered ? { renditions: { dir: prerendered, sizes } } : {}),
      });
    } catch (error) {
      if (error instanceof ImageUnreadable || error instanceof ZipDamaged) {
        throw new ConversionFailed('damaged', error.message);
      }
      throw error;
    }
    return { pdf, converter: `PDFKit and sharp ${sharp.versions.sharp}` };
  }
  if (!isOfficeType(fileType)) {
    throw new ConversionFailed('failed', `A ${fileType} file cannot be made into a PDF`);
  }
  const convert = deps.convert ?? DEFAULT_CONVERT;
  if (!convert.office) {
    throw new ConversionFailed(
      'failed',
      'This server does not convert office documents (it was started with --no-convert)',
    );
  }
  const { pdf } = await officeToPdf(input, join(dir, 'out'), {
    timeoutMs: convert.timeoutMs,
    memoryMb: convert.memoryMb,
    signal,
  });
  return { pdf, converter: await libreOfficeVersion() };
};

/** The PDF into the store by its checksum, as an upload's original goes (the same addresses). */
const keep = async (deps: ProcessDeps, pdf: string) => {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(pdf)) hash.update(chunk as Buffer);
  const checksum = hash.digest('hex');
  const { size } = await stat(pdf);
  const incoming = await deps.blobs.temporary();
  try {
    await pipeline(createReadStream(pdf), incoming.stream);
    await deps.blobs.commitOriginal(incoming.ref, checksum);
  } catch (error) {
    await deps.blobs.discard(incoming.ref).catch(() => {});
    throw error;
  }
  return { checksum, size };
};

let office: Promise<string> | null = null;
/**
 * "LibreOffice 7.4.7.2", asked once a process (for the event's record of what made the PDF).
 * In a folder of its own as HOME: even `--version` makes a profile there.
 */
const libreOfficeVersion = () => {
  office ??= (async () => {
    const home = await mkdtemp(join(tmpdir(), `flipbook-soffice-${process.pid}-`));
    try {
      const { stdout } = await promisify(execFile)('soffice', ['--version'], {
        timeout: 30_000,
        env: { ...process.env, HOME: home },
      });
      return stdout.trim().split(/\s+/).slice(0, 2).join(' ') || 'LibreOffice';
    } catch {
      return 'LibreOffice';
    } finally {
      await rm(home, { recursive: true, force: true }).catch(() => {});
    }
  })();
  return office;
};
