// Turning poppler's complaints into reasons a person can read, and telling a page that merely has
// no size from a damaged file.
import { describe, expect, it } from 'vitest';
import { MachineFailure } from '../../src/domain/errors.ts';
import { ToolFailure, toolFailure } from '../../src/pdf/poppler.ts';
import {
  brokenObjects,
  explain,
  RenderFailure,
  StorageFailure,
  storageProblem,
} from '../../src/pdf/renderFailure.ts';

// What pdftoppm printed for pages it reports as 0x0 (shortened from the corpus files).
const NO_SIZE = 'Internal Error: JpegWriter::init: hDPI or vDPI values are invalid 0. 0.';
const REPAIRED = [
  'Internal Error: xref num 174 not found but needed, try to reconstruct<0a>',
  'Syntax Error: Failed to parse XRef entry [267].',
  "Syntax Error: Missing 'endstream' or incorrect stream length",
  'Syntax Error: Top-level pages object is wrong type (null)',
  NO_SIZE,
].join('\n');

describe('brokenObjects', () => {
  it('leaves a page alone when poppler only had to repair the cross-reference table', () => {
    expect(brokenObjects(REPAIRED)).toBeNull();
    expect(brokenObjects(NO_SIZE)).toBeNull();
  });

  it.each([
    ['Syntax Error: End of file inside dictionary', 'end of file inside dictionary'],
    ['Syntax Error: End of file inside array', 'end of file inside array'],
    ['Syntax Error (535): Dictionary key must be a name object', 'dictionary key must be'],
    ['Syntax Error: Kids object (page 1) is wrong type (dictionary)', 'kids object (page 1)'],
    ['Syntax Error (2): Unknown compression method in flate stream', 'unknown compression'],
  ])('calls the file damaged when poppler says "%s"', (line, reason) => {
    const failure = brokenObjects(`${REPAIRED}\n${line}\n${NO_SIZE}`);
    expect(failure).toBeInstanceOf(RenderFailure);
    expect(failure?.message).toMatch(/^The PDF is damaged: /);
    expect(failure?.message).toContain(reason);
  });
});

describe('explain', () => {
  it('names a password-protected file', () => {
    expect(explain(new Error('Command Line Error: Incorrect password'), 'read').message).toBe(
      'The PDF is password-protected: it can only be opened with its password',
    );
  });

  it("keeps poppler's last error line, without its prefix", () => {
    const failure = explain(new Error('Syntax Warning: x\nSyntax Error (12): Bad thing'), 'render');
    expect(failure.message).toBe('The PDF could not be rendered: Bad thing');
  });
});

describe('explain, from how the tool ended', () => {
  const died = (signal: NodeJS.Signals, stderr = '') =>
    new ToolFailure('pdftoppm', null, signal, stderr);

  it.each([
    [died('SIGSEGV'), 'The renderer crashed on this PDF; the file is probably damaged'],
    [died('SIGBUS'), 'The renderer crashed on this PDF; the file is probably damaged'],
    [
      died('SIGABRT', 'some assertion'),
      'The renderer crashed on this PDF; the file is probably damaged',
    ],
    [died('SIGXCPU'), 'Rendering used more CPU time than allowed'],
    [died('SIGKILL'), 'Rendering needed more memory than allowed'],
    [died('SIGABRT', 'Out of memory\n'), 'Rendering needed more memory than allowed'],
    [
      new ToolFailure('pdftoppm', 0, null, 'Bogus memory allocation size'),
      'Rendering needed more memory than allowed',
    ],
    [
      new ToolFailure('pdftoppm', 1, null, 'Syntax Error: Bad thing'),
      'The PDF could not be rendered: Bad thing',
    ],
  ])('%s', (failure, reason) => {
    expect(explain(failure, 'render').message).toBe(reason);
  });

  it('words a failure to read the file as reading', () => {
    expect(explain(died('SIGSEGV'), 'read').message).toBe(
      'The PDF reader crashed on this PDF; the file is probably damaged',
    );
    expect(explain(died('SIGXCPU'), 'read').message).toBe(
      'Reading the PDF used more CPU time than allowed',
    );
  });
});

describe("explain, from the wrapper's last line (node-poppler rejects with stderr alone)", () => {
  const rejected = (stderr: string) => toolFailure('pdftoppm', new Error(stderr));

  it.each([
    [
      'Syntax Error: x\n\nflipbook-poppler: pdftoppm died of signal SEGV',
      'The renderer crashed on this PDF; the file is probably damaged',
    ],
    ['flipbook-poppler: pdftoppm died of signal XCPU', 'Rendering used more CPU time than allowed'],
    ['flipbook-poppler: pdftoppm died of signal KILL', 'Rendering needed more memory than allowed'],
    [
      'Out of memory\n\nflipbook-poppler: pdftoppm died of signal ABRT',
      'Rendering needed more memory than allowed',
    ],
    [
      'Syntax Error: Bad thing\n\nflipbook-poppler: pdftoppm exited with status 1',
      'The PDF could not be rendered: Bad thing',
    ],
  ])('%j', (stderr, reason) => {
    expect(explain(rejected(stderr), 'render').message).toBe(reason);
  });

  it('keeps how it ended and what poppler said apart', () => {
    const failure = rejected('Syntax Error: x\n\nflipbook-poppler: pdftoppm died of signal 11');
    expect(failure).toMatchObject({ signal: 'SIGSEGV', code: null, stderr: 'Syntax Error: x' });
  });

  it('reads only the last line: poppler printing the marker (the PDF chose the words) is not it', () => {
    const failure = rejected(
      'flipbook-poppler: pdftoppm died of signal XCPU\nSyntax Error: Bad thing\n\nflipbook-poppler: pdftoppm exited with status 1',
    );
    expect(failure).toMatchObject({ signal: null, code: 1 });
    expect(explain(failure, 'render').message).toBe('The PDF could not be rendered: Bad thing');
  });

  it("reads execFile's stderr (node-poppler's version probe rejects with execFile's error)", () => {
    const probe = Object.assign(new Error('Command failed: /tmp/x/pdftoppm -v\n'), {
      stderr: '\nflipbook-poppler: pdftoppm died of signal SEGV\n',
    });
    expect(toolFailure('pdftoppm', probe)).toMatchObject({ signal: 'SIGSEGV' });
  });

  it("reads a lost output as the machine's failure, never the document's", () => {
    const failure = toolFailure(
      'pdfinfo',
      new Error(
        'head: write error: No space left on device\n\nflipbook-poppler: pdfinfo could not keep its output: no space left in TMPDIR (/var/tmp (x))',
      ),
    );
    expect(failure).toBeInstanceOf(MachineFailure);
    expect(failure).toMatchObject({
      status: 503,
      message: "The server's temporary disk is full; try again later",
      detail: 'pdfinfo could not keep its output: no space left in TMPDIR (/var/tmp (x))',
      directory: '/var/tmp (x)',
    });
    // Processing defers it like a full disk.
    expect(storageProblem(failure)).toBeInstanceOf(StorageFailure);
    const failing = toolFailure(
      'pdfinfo',
      new Error(
        'flipbook-poppler: pdfinfo could not keep its output: writing it failed in TMPDIR (/tmp)',
      ),
    );
    expect((failing as MachineFailure).message).toBe(
      "The server's temporary disk is failing; try again later",
    );
  });

  it('leaves an error without the line as it is (a tool that could not start, an abort)', () => {
    const missing = new Error('spawn /tmp/x/pdftoppm ENOENT');
    expect(toolFailure('pdftoppm', missing)).toBe(missing);
  });
});
