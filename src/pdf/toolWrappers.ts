// The wrappers every poppler tool (and qpdf) runs through: bash scripts named like the tools, in
// a directory node-poppler is pointed at (poppler.ts). Each sets the limits, then runs the tool.
//
// A poppler tool's wrapper does not exec it: it waits for it, so that it can say how it ended
// (node-poppler passes on nothing but stderr text and, when there is any, stdout):
// - the tool's stdout and stderr are held in files until it ends. If it failed, its stdout is
//   dropped (node-poppler would resolve with it as if all went well, and rejects on an empty
//   one) and the wrapper ends stderr with its own line, after poppler's complaints:
//   `flipbook-poppler: <tool> died of signal <NAME>`, `... exited with status <n>`,
//   `... wrote more than <n> bytes`; the exit status stays the tool's (128 + n for a signal);
// - what the tool printed is checked to be kept whole (the status of each `head` writing a file,
//   the scratch folder made): on a full or failing TMPDIR the tool may succeed and its output
//   be lost, an empty answer that read as "the PDF has no pages". Then, whatever the tool did,
//   the last line is `... could not keep its output: no space left in TMPDIR (<dir>)` (or how
//   else it failed), exit 75: the machine's failure (poppler.ts makes it a MachineFailure);
// - stdout is cut at the most any caller reads (STDOUT_BYTES): a hostile file cannot fill the
//   daemon's memory, nor the disk, through it; a tool that writes more is stopped (head closes
//   the pipe) and that is a failure. stderr is cut at STDERR_BYTES, the rest read and dropped;
// - node-poppler's abort is a SIGTERM to the wrapper: the wrapper kills the tool, which would
//   otherwise outlive it.
//
// The wrappers are executed, so their directory must be ours alone: it is made fresh with
// mkdtemp (mode 0700, an unpredictable name) by each process, never found by a name another local
// user could create first and fill with their own `pdfinfo`; it is removed when the process exits.
import { rmSync } from 'node:fs';
import { chmod, lstat, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { isAlive } from '../isAlive.ts';
import { killOrphansOf } from './orphanTools.ts';

/** How much lower than the daemon processing's tools run (`renice`; the tiles' is 10). */
export const PROCESSING_NICE = 5;

export type ProcessLimits = {
  memoryMb: number;
  cpuSeconds: number;
  /** where the real tools live; tests put stand-ins (that crash, hang, allocate) elsewhere */
  toolDir?: string;
  /**
   * how much lower than this process the tools run (`renice`, 0 to 19): deep-zoom tiles run at
   * 10, so a flood of them leaves the cores to processing and the API, even in another process
   */
  nice?: number;
  /** the largest file a tool may write (`ulimit -f`); MAX_FILE_BYTES when not given */
  fileBytes?: number;
};

/** The caps every poppler process runs under, uploads' pdfinfo included. */
export const DEFAULT_LIMITS: ProcessLimits = { memoryMb: 1536, cpuSeconds: 600 };

/**
 * The largest file a tool writes unless its limits say otherwise: a tool that would write more
 * dies of SIGXFSZ at this size, so that the temporary disk a job takes is bounded while it runs
 * (the text pass's TSV grows with a document's text: 3.7 MB for a 184-page manual; a page image is
 * a few MB), not found too large only after.
 */
export const MAX_FILE_BYTES = 512 * 1024 * 1024;

/**
 * The most stdout each poppler tool may write: what its most demanding caller reads (pdfPages'
 * pdfinfo over 2000 pages, the links' pdftotext -bbox); a caller may read less (its maxBytes).
 * pdftoppm, pdftocairo and pdfimages write files, not stdout.
 */
const STDOUT_BYTES = {
  pdfinfo: 4 * 1024 * 1024,
  pdftotext: 32 * 1024 * 1024,
  pdftoppm: 64 * 1024,
  pdftocairo: 64 * 1024,
  pdfimages: 64 * 1024,
};
/** What the daemon keeps of a tool's complaints: plenty to explain a failure. */
const STDERR_BYTES = 64 * 1024;
const dirs = new Map<string, Promise<string>>();

/** What tells one set of limits (and so one directory of wrappers) from another. */
export const limitsKey = (limits: ProcessLimits) =>
  `${limits.memoryMb}:${limits.cpuSeconds}:${limits.toolDir ?? ''}:${limits.nice ?? 0}:${limits.fileBytes ?? MAX_FILE_BYTES}`;

/** The directory of wrappers for these limits, made once per process. */
export const limitedDir = (limits: ProcessLimits): Promise<string> => {
  const key = limitsKey(limits);
  let dir = dirs.get(key);
  if (!dir) {
    dir = makeWrappers(limits);
    // A failed attempt (a full /tmp) is not remembered: the next job tries again.
    dir.catch(() => dirs.delete(key));
    dirs.set(key, dir);
  }
  return dir;
};

/** The directory of the wrappers this process made, for tests and the exit clean-up. */
export const wrapperDirs: string[] = [];

const makeWrappers = async (limits: ProcessLimits) => {
  // The pid in the name lets a later start remove the folder of a process that was killed
  // (sweepWrapperDirs); the random suffix is what makes it unguessable.
  const dir = await mkdtemp(join(tmpdir(), `flipbook-poppler-${process.pid}-`));
  if (wrapperDirs.length === 0) {
    process.once('exit', () => {
      for (const made of wrapperDirs) rmSync(made, { recursive: true, force: true });
    });
  }
  wrapperDirs.push(dir);
  const scripts: [string, string][] = [
    ...Object.entries(STDOUT_BYTES).map(([tool, bytes]): [string, string] => [
      tool,
      popplerWrapper(tool, bytes, dir, limits),
    ]),
    ['qpdf', qpdfWrapper(limits)],
  ];
  for (const [tool, script] of scripts) {
    const file = join(dir, tool);
    // 'wx': in our own fresh directory nothing can be there already; if something is, stop.
    await writeFile(file, script, { flag: 'wx', mode: 0o700 });
    await chmod(file, 0o700);
  }
  return dir;
};

const capLines = (limits: ProcessLimits) => [
  ...(limits.nice ? [`renice -n ${Math.round(limits.nice)} -p $$ >/dev/null 2>&1`] : []),
  `ulimit -v ${Math.round(limits.memoryMb * 1024)} 2>/dev/null`,
  // (in blocks of 1024 bytes; the wrapper's own files are far smaller: STDOUT_BYTES)
  `ulimit -f ${Math.ceil((limits.fileBytes ?? MAX_FILE_BYTES) / 1024)} 2>/dev/null`,
  // The soft CPU limit sends SIGXCPU, which ends poppler and names the cause; the hard one, a
  // little later, SIGKILLs a tool that would survive it. (Equal limits send SIGKILL at once,
  // which looks like the kernel's out-of-memory kill.)
  `ulimit -H -t ${Math.round(limits.cpuSeconds) + 5} 2>/dev/null`,
  `ulimit -S -t ${Math.round(limits.cpuSeconds)} 2>/dev/null`,
];

const popplerWrapper = (tool: string, stdoutBytes: number, dir: string, limits: ProcessLimits) =>
  [
    '#!/bin/bash',
    `# ${tool} under the limits of src/pdf/toolWrappers.ts; a failure's last line says how it ended.`,
    ...capLines(limits),
    `tool=${shellQuote(join(limits.toolDir ?? '/usr/bin', tool))}`,
    // node-poppler asks a tool's version (`-v`, once) before its first run, without the
    // caller's AbortSignal: the installed tool answers, also where a test's stand-in takes its
    // place (a stand-in hangs or crashes whatever it is asked), and straight to node-poppler,
    // which reads it on stderr: a full disk must not make the answer empty (then node-poppler
    // throws a TypeError of its own).
    `[[ $# == 1 && $1 == -v ]] && exec ${shellQuote(join('/usr/bin', tool))} -v`,
    // Written straight to our stderr, past the cut: it always arrives, and always comes last.
    `ended() { printf '\\nflipbook-poppler: %s %s\\n' ${tool} "$1" >&2; exit "$2"; }`,
    // The output could not be kept (TMPDIR full or failing): the machine's failure, whatever the
    // tool did, since what it said is lost. EX_TEMPFAIL (75): try again later.
    `tmp=${shellQuote(dirname(dir))}`,
    `unkept() {`,
    `  local free; free=$(stat -f -c '%a %d' ${shellQuote(dir)} 2>/dev/null)`,
    `  [[ $free == '0 '* || $free == *' 0' ]] && set -- 'no space left'`,
    '  ended "could not keep its output: $1 in TMPDIR ($tmp)" 75',
    `}`,
    'stopped= pid=',
    `trap 'stopped=1; [[ $pid ]] && kill -KILL "$pid" 2>/dev/null' TERM`,
    // Unlinked at once, read through the descriptors: nothing is left behind, whatever happens.
    `scratch=$(mktemp -d -p ${shellQuote(dir)} run.XXXXXX) || unkept 'its scratch folder could not be made'`,
    'exec 3>"$scratch/out" 4<"$scratch/out" 7>"$scratch/err" 8<"$scratch/err" ||',
    '  { rm -rf -- "$scratch"; unkept \'its scratch files could not be opened\'; }',
    'rm -rf -- "$scratch"',
    // head's status says whether everything it read was written (a full disk: 1, and its own
    // complaint on our stderr); stopping at the cut is no failure.
    `exec 5> >(exec head -c ${stdoutBytes + 1} >&3)`,
    'outpid=$!',
    // Closing the pipe would kill a tool that merely complains (the corpus's smask bomb writes
    // 2 GB of them in a minute): only the first STDERR_BYTES are kept, the rest read and dropped.
    `exec 6> >(exec 5>&-; head -c ${STDERR_BYTES} >&7; kept=$?; cat >/dev/null; exit $kept)`,
    'errpid=$!',
    '"$tool" "$@" >&5 2>&6 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- &',
    'pid=$!',
    '[[ $stopped ]] && kill -KILL "$pid" 2>/dev/null',
    'exec 5>&- 6>&-',
    'wait "$pid" 2>/dev/null',
    'status=$?',
    'if [[ $stopped ]]; then wait "$pid" 2>/dev/null; exit 143; fi',
    'pid=',
    'wait "$outpid"; outkept=$?',
    'wait "$errpid"; errkept=$?',
    '[[ -s /dev/fd/8 ]] && cat <&8 >&2',
    // Before the tool's own ending: a tool whose stdout reader died of the full disk may die of
    // SIGPIPE, and an empty stdout is no answer.
    "(( outkept || errkept )) && unkept 'writing it failed'",
    `[[ -s /dev/fd/4 ]] && (( $(stat -L -c %s /dev/fd/4) > ${stdoutBytes} )) &&`,
    `  ended 'wrote more than ${stdoutBytes} bytes' $(( status ? status : 1 ))`,
    '(( status > 128 )) &&',
    '  ended "died of signal $(kill -l "$status" 2>/dev/null || echo $(( status - 128 )))" "$status"',
    '(( status )) && ended "exited with status $status" "$status"',
    ...(tool === 'pdfinfo'
      ? [
          // pdfinfo exits 0 when an allocation failed on the way; what it printed (a page
          // count, sizes) is not to be trusted.
          "[[ -s /dev/fd/8 ]] && grep -qE 'Out of memory|Bogus memory allocation' /dev/fd/8 &&",
          "  ended 'exited with status 0 after an allocation failed' 1",
        ]
      : []),
    '[[ -s /dev/fd/4 ]] && cat <&4',
    'exit 0',
    '',
  ].join('\n');

// qpdf runs from its own execFile (poppler.ts), which sees its exit status and signal: its
// wrapper execs it, cutting only stderr.
const qpdfWrapper = (limits: ProcessLimits) =>
  [
    '#!/bin/bash',
    ...capLines(limits),
    `exec ${shellQuote(join(limits.toolDir ?? '/usr/bin', 'qpdf'))} "$@" 2> >(head -c ${STDERR_BYTES} >&2; cat >/dev/null)`,
    '',
  ].join('\n');

const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

const DAY_MS = 24 * 3_600_000;

/**
 * Removes the wrapper folders of processes that died without cleaning up (kill -9): ours by
 * owner, with a pid that no longer runs, and what their tools left running in them (one look at
 * the machine's processes for all of them). Best effort: a folder we cannot judge stays. Says
 * what it removed and killed, for the start's log.
 */
export const sweepWrapperDirs = async (): Promise<{ folders: number; killed: string[] }> => {
  const uid = process.getuid?.();
  const dead: string[] = [];
  for (const name of await readdir(tmpdir()).catch(() => [] as string[])) {
    // The tools' wrappers, the scratch folders of page images rendered after processing
    // (src/app/laterRenditions.ts), and of conversions (src/worker/convertVersion.ts, the
    // LibreOffice profiles of src/pdf/officePdf.ts), readers' marked downloads
    // (src/app/stampedDownloads.ts) and tiles being made (src/pdf/pageTile.ts), of processes
    // that are gone (killed: nothing removed them).
    const pid = Number(
      /^flipbook-(?:poppler|pages|convert|office|soffice|stamps|tile)-(\d+)-(?:pages-)?[A-Za-z0-9]{6}$/.exec(
        name,
      )?.[1],
    );
    // (earlier versions named marked downloads' folders without their pid: one untouched for a
    // day is a killed daemon's, its readers' addresses on its copies)
    const legacy = /^flipbook-stamps-[A-Za-z0-9]{6}$/.test(name);
    if (!legacy && (!pid || pid === process.pid || isAlive(pid))) continue;
    const path = join(tmpdir(), name);
    const info = await lstat(path).catch(() => null);
    if (!info?.isDirectory() || info.uid !== uid) continue;
    if (legacy && Date.now() - info.mtimeMs < DAY_MS) continue;
    dead.push(path);
  }
  if (dead.length === 0) return { folders: 0, killed: [] };
  const killed = await killOrphansOf(dead);
  for (const path of dead) await rm(path, { recursive: true, force: true });
  return { folders: dead.length, killed };
};

/**
 * The sweep a start runs beside its work (best effort, never awaited), said in its log when it
 * found anything: an operator sees what a kill had left behind, and which tools were still running.
 */
export const sweepAtStart = (log: { info: (fields: object, message: string) => void }) =>
  sweepWrapperDirs()
    .then(({ folders, killed }) => {
      if (folders === 0) return;
      const tools = killed.length > 0 ? `, and killed what ran there: ${killed.join(', ')}` : '';
      log.info(
        { folders, killed },
        `removed ${folders} scratch folders of killed processes${tools}`,
      );
    })
    .catch(() => {});
