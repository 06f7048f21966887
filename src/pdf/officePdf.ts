// An office document to a PDF through one LibreOffice process (issue 45; docs/architecture.md,
// "Office documents: LibreOffice headless"). One `soffice` per call, cold: ~2 s of start each
// time, and the isolation the issue asks for.
//
// - What the file is comes from its content (documentKind.ts): it picks the export filter
//   (Writer, Impress or Calc, whose JSON options skip notes pages and hidden slides), refuses a
//   ZIP bomb before LibreOffice sees it, and tells "password-protected" from "damaged" when
//   LibreOffice says only "source file could not be loaded". The file is read whole to sniff
//   it: office documents are a few MB, and the upload limit bounds them.
// - Its own profile in a fresh mkdtemp folder, seeded with HARDENED_PROFILE (officeProfile.ts):
//   two soffice sharing one profile hand their work to each other and one exits with nothing.
// - No network: `unshare -rn` when the kernel lets this user make a namespace (probed once per
//   process); else the profile alone (linked images blocked, a dead proxy).
// - `prlimit --as` bounds its memory (a paragraph bomb dies of bad_alloc instead of growing past
//   4.8 GB); a wall clock and the caller's signal kill its process group (soffice is a script →
//   oosplash → soffice.bin: killing the first alone leaves soffice.bin running). The group is
//   killed after every run, whatever happened, and the profile folder removed.
// - Success is a non-empty PDF that pdfinfo reads, never the exit code: LibreOffice exits 0 on a
//   file it could not load. The PDF is written in a scratch folder inside `outputDir` and renamed
//   into place complete.
import { execFile, spawn } from 'node:child_process';
import {
  copyFile,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, extname, join, resolve } from 'node:path';
import { refuseUnpacked, type Sniffed } from './documentKind.ts';
import { HARDENED_PROFILE } from './officeProfile.ts';
import { ReasonedFailure } from './reasonedFailure.ts';
import { disarmRtf } from './rtfFields.ts';
import { sniffFile } from './sniffFile.ts';
import { PROCESSING_NICE } from './toolWrappers.ts';

export type ConversionReason = 'password' | 'damaged' | 'timeout' | 'too-large' | 'failed';

/** The document could not be converted, and why, in words for its owner. Nothing was written. */
export class ConversionFailed extends ReasonedFailure<ConversionReason> {
  override name = 'ConversionFailed';
}

export type OfficeToPdfOptions = { timeoutMs?: number; memoryMb?: number; signal?: AbortSignal };

const TIMEOUT_MS = 120_000;
const MEMORY_MB = 1536;
/** What is kept of soffice's own words: it says little, and a failure's cause is in the first. */
const OUTPUT_BYTES = 16 * 1024;

const FILTERS = {
  writer: 'writer_pdf_Export:{"ExportNotes":{"type":"boolean","value":"false"}}',
  impress:
    'impress_pdf_Export:{"ExportNotes":{"type":"boolean","value":"false"},"ExportNotesPages":{"type":"boolean","value":"false"},"ExportHiddenSlides":{"type":"boolean","value":"false"}}',
  // Comments are reviewers' words (with their names): never in the PDF, asked explicitly, since
  // with any option given LibreOffice exports them (a deck's, found by test/int/officeCorpus).
  calc: 'calc_pdf_Export:{"ExportNotes":{"type":"boolean","value":"false"}}',
};
const FILTER_OF: Record<string, keyof typeof FILTERS> = {
  docx: 'writer',
  doc: 'writer',
  odt: 'writer',
  rtf: 'writer',
  pptx: 'impress',
  ppt: 'impress',
  odp: 'impress',
  xlsx: 'calc',
  xls: 'calc',
  ods: 'calc',
};

/**
 * Converts the office document at `input` to `<outputDir>/<its name>.pdf`; resolves with that
 * path and the page count. Rejects with a ConversionFailed.
 */
export const officeToPdf = async (
  input: string,
  outputDir: string,
  options: OfficeToPdfOptions = {},
): Promise<{ pdf: string; pages?: number }> => {
  const clock = AbortSignal.timeout(options.timeoutMs ?? TIMEOUT_MS);
  const signal = options.signal ? AbortSignal.any([clock, options.signal]) : clock;
  const stopped = () =>
    new ConversionFailed(
      'timeout',
      clock.aborted
        ? 'Converting the document took too long'
        : 'Converting the document was stopped',
    );
  if (signal.aborted) throw stopped();
  const file = resolve(input);
  const sniffed = await sniff(file);
  const filter = sniffed.kind === 'ooxml-encrypted' ? undefined : FILTER_OF[sniffed.kind];
  if (sniffed.kind === 'unknown')
    throw new ConversionFailed('damaged', `Not an office document: ${sniffed.why}`);
  const zipRefusal = sniffed.zip && refuseUnpacked(sniffed.zip);
  if (zipRefusal) throw new ConversionFailed('too-large', zipRefusal);
  if (sniffed.family !== 'office')
    throw new ConversionFailed('failed', `A ${sniffed.kind} is not an office document`);

  await mkdir(outputDir, { recursive: true });
  // Named after this process: a start after a kill removes it (sweepWrapperDirs).
  const profile = await mkdtemp(join(tmpdir(), `flipbook-office-${process.pid}-`));
  const scratch = await mkdtemp(join(resolve(outputDir), '.office-'));
  try {
    await mkdir(join(profile, 'user'));
    await writeFile(join(profile, 'user', 'registrymodifications.xcu'), HARDENED_PROFILE);
    // LibreOffice is given a copy named for what it is: the stored original has no extension,
    // and without one it cannot tell a macro-enabled OOXML (.docm .xlsm .pptm) at all. An RTF
    // goes with its include fields disarmed (./rtfFields.ts).
    const input = join(profile, `document${extensionOf(sniffed)}`);
    if (sniffed.kind === 'rtf') await writeFile(input, disarmRtf(await readFile(file)));
    else await copyFile(file, input);
    const seconds = Math.ceil((options.timeoutMs ?? TIMEOUT_MS) / 1000);
    const soffice = [
      // Below the API and its database, as processing's other tools (PROCESSING_NICE).
      ...['nice', '-n', String(PROCESSING_NICE)],
      // Its own clock too: a daemon killed mid-conversion cannot stop it, this does.
      ...['timeout', '-k', '5', String(seconds + 5)],
      'soffice',
      `-env:UserInstallation=file://${profile}`,
      ...['--headless', '--norestore', '--nolockcheck', '--nodefault', '--nologo'],
      // An encrypted OOXML's family is unknown until it is opened: plain `pdf` picks the filter.
      ...['--convert-to', filter ? `pdf:${FILTERS[filter]}` : 'pdf', '--outdir', scratch, input],
    ];
    const limited = (await hasPrlimit())
      ? ['prlimit', `--as=${(options.memoryMb ?? MEMORY_MB) * 1024 * 1024}`, '--', ...soffice]
      : soffice;
    const command = (await canUnshareNet()) ? ['unshare', '-rn', '--', ...limited] : limited;
    const run = await runGroup(command, signal, profile);
    if (signal.aborted) throw stopped();
    const made = (await readdir(scratch)).find((name) => name.endsWith('.pdf'));
    const size = made ? (await stat(join(scratch, made))).size : 0;
    if (!made || size === 0) throw notMade(run, sniffed);
    const pages = await pdfPages(join(scratch, made), signal);
    if (pages === undefined)
      throw new ConversionFailed('failed', 'LibreOffice wrote a PDF that cannot be read');
    const pdf = join(resolve(outputDir), `${basename(file, extname(file))}.pdf`);
    await rename(join(scratch, made), pdf);
    return { pdf, pages };
  } catch (error) {
    if (error instanceof ConversionFailed) throw error;
    if (signal.aborted) throw stopped();
    throw new ConversionFailed(
      'failed',
      `Converting the document failed: ${(error as Error)?.message ?? error}`,
      {
        cause: error,
      },
    );
  } finally {
    await rm(profile, { recursive: true, force: true });
    await rm(scratch, { recursive: true, force: true });
  }
};

/**
 * The extension LibreOffice knows the document by (a macro-enabled OOXML's its own); none for
 * an encrypted OOXML, whose kind is known once it is opened (LibreOffice tells it by content).
 */
const extensionOf = (sniffed: Sniffed) => {
  if (sniffed.kind === 'unknown' || sniffed.kind === 'ooxml-encrypted') return '';
  if ('macros' in sniffed && sniffed.macros) {
    return `.${{ docx: 'docm', xlsx: 'xlsm', pptx: 'pptm' }[sniffed.kind as string] ?? sniffed.kind}`;
  }
  return `.${sniffed.kind}`;
};

const sniff = (file: string): Promise<Sniffed> =>
  sniffFile(file).catch((error: unknown) => {
    throw new ConversionFailed(
      'failed',
      `The document cannot be read: ${(error as Error).message}`,
    );
  });

type Run = { code: number | null; output: string };

/**
 * No PDF came out: LibreOffice's words, or what the sniffer knows, say why. Under the address-space
 * cap, an allocation or a library mapping that fails (134: SIGABRT after bad_alloc) is the cap.
 */
const notMade = (run: Run, sniffed: Sniffed) => {
  if (
    /bad_alloc|failed to map segment|Cannot allocate memory/.test(run.output) ||
    run.code === 134 ||
    run.code === 137
  ) {
    return new ConversionFailed(
      'too-large',
      'The document needs more memory than a conversion is allowed',
    );
  }
  if (/could not be loaded/.test(run.output)) {
    return sniffed.kind !== 'unknown' && sniffed.encrypted
      ? new ConversionFailed('password', 'The document is password-protected')
      : new ConversionFailed('damaged', 'The document is damaged: LibreOffice could not open it');
  }
  const said = run.output.trim().split('\n').at(-1) ?? '';
  return new ConversionFailed(
    'failed',
    `LibreOffice made no PDF (exit ${run.code}${said ? `: ${said}` : ''})`,
  );
};

/** Runs `command` in its own process group; kills the group when it ends or `signal` fires. */
const runGroup = (command: string[], signal: AbortSignal, profile: string) =>
  new Promise<Run>((done, fail) => {
    const [program, ...args] = command as [string, ...string[]];
    const child = spawn(program, args, {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      // soffice looks for its files under HOME too, and keeps its temporary files in TMPDIR
      // (lu*.tmp): both in the scratch profile, which goes after the run (or the sweep's).
      env: { ...process.env, HOME: profile, TMPDIR: profile },
    });
    let output = '';
    const keep = (chunk: Buffer) => {
      if (output.length < OUTPUT_BYTES)
        output += chunk.toString('utf8').slice(0, OUTPUT_BYTES - output.length);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const killGroup = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // ESRCH: the group is gone already.
      }
    };
    signal.addEventListener('abort', killGroup, { once: true });
    if (signal.aborted) killGroup();
    child.once('error', (error) => {
      signal.removeEventListener('abort', killGroup);
      fail(error);
    });
    child.once('exit', (code, killedBy) => {
      signal.removeEventListener('abort', killGroup);
      // Whatever ended it, nothing of the group outlives the call.
      killGroup();
      done({ code: code ?? (killedBy ? 128 : null), output });
    });
  });

const pdfPages = (pdf: string, signal: AbortSignal) =>
  new Promise<number | undefined>((done) => {
    execFile('pdfinfo', [pdf], { signal, maxBuffer: 1024 * 1024 }, (error, stdout) => {
      const pages = Number(/^Pages:\s+(\d+)/m.exec(stdout ?? '')?.[1]);
      done(error || !(pages > 0) ? undefined : pages);
    });
  });

const probe = (program: string, args: string[]) =>
  new Promise<boolean>((done) =>
    execFile(program, args, { timeout: 5000 }, (error) => done(!error)),
  );

let unshareNet: Promise<boolean> | undefined;
/** Whether this process may make a network namespace (containers' seccomp usually refuses). */
const canUnshareNet = () => {
  unshareNet ??= probe('unshare', ['-rn', '--', 'true']);
  return unshareNet;
};
let prlimit: Promise<boolean> | undefined;
const hasPrlimit = () => {
  prlimit ??= probe('prlimit', ['--version']);
  return prlimit;
};
