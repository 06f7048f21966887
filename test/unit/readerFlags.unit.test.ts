// What `flipbook share create` and `share edit` ask of readers (packages/cli/src/readerFlags.ts):
// the flags as commander reads them, checked by the server's own rules before anything is sent
// (exit 2, in the flags' words), turned into the API's fields; and the server's refusals of them
// said with the flags' names.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import {
  flagAllow,
  flagIdentify,
  flagTerms,
  type ReaderFlags,
  readerRules,
  withReaderOptions,
} from '../../packages/cli/src/readerFlags.ts';
import { inShareFlagWords } from '../../packages/cli/src/shareFlags.ts';

const usageError = async (work: () => unknown) => {
  try {
    await work();
  } catch (error) {
    expect((error as { exitCode: number }).exitCode).toBe(2);
    return (error as Error).message;
  }
  throw new Error('expected a usage error');
};

/** The flags commander hands the action for these arguments. */
const parsed = (args: string[], editing: boolean) => {
  const command = withReaderOptions(new Command('x').exitOverride(), editing);
  command.parse(args, { from: 'user' });
  return command.opts<ReaderFlags>();
};

const bytes = (text: string) => new TextEncoder().encode(text);
/** A terms "file" by name, for readerRules. */
const files =
  (contents: Record<string, string>) =>
  async (path: string): Promise<Uint8Array> =>
    bytes(contents[path] ?? '');

describe('the reader flags, as commander reads them', () => {
  it('absent flags are absent; --allow repeats and adds up; --no- forms are false', async () => {
    expect(parsed([], false)).toEqual({});
    // (--no-terms alone makes commander default terms to true: that asks nothing either)
    expect(parsed([], true)).toEqual({ terms: true });
    expect(await readerRules({ terms: true }, false)).toEqual({});
    expect(
      parsed(
        ['--allow', 'a@x.org,x.org', '--allow', 'b@y.org', '--watermark', '--no-notify'],
        false,
      ),
    ).toEqual({ allow: ['a@x.org,x.org', 'b@y.org'], watermark: true, notify: false });
    expect(parsed(['--no-allow', '--no-terms', '--no-watermark'], true)).toEqual({
      allow: false,
      terms: false,
      watermark: false,
    });
    expect(parsed(['--allow', ''], true)).toEqual({ allow: [''], terms: true });
    // The forms that clear are edit's only.
    expect(() => parsed(['--no-terms'], false)).toThrow(/unknown option '--no-terms'/);
  });
});

describe('the reader flags, checked before anything is sent', () => {
  it('--identify: none, email or verified_email, any case', () => {
    expect(flagIdentify('email')).toBe('email');
    expect(flagIdentify(' Verified_Email ')).toBe('verified_email');
    expect(flagIdentify('none')).toBe('none');
  });

  it('--identify: anything else is refused in words', async () => {
    expect(await usageError(() => flagIdentify('verified'))).toBe(
      '--identify must be none, email or verified_email, got "verified"',
    );
  });

  it('--allow: comma-separated and repeated, trimmed; none at all is null (anyone)', () => {
    expect(flagAllow(['a@x.org, x.org', ' @y.org '])).toEqual(['a@x.org', 'x.org', '@y.org']);
    expect(flagAllow([''])).toBeNull();
    expect(flagAllow([' , '])).toBeNull();
  });

  it('--allow: an entry that is no address nor domain is named; at most 200', async () => {
    expect(await usageError(() => flagAllow(['a@x.org,bob@localhost']))).toMatch(
      /^--allow: "bob@localhost" is not an email address: /,
    );
    expect(await usageError(() => flagAllow(['acme com']))).toBe(
      '--allow: "acme com" is neither an address nor a domain: it has spaces or control characters',
    );
    const many = Array.from({ length: 201 }, (_, i) => `r${i}@x.org`).join(',');
    expect(await usageError(() => flagAllow([many]))).toBe(
      '--allow: at most 200 addresses or domains, got 201',
    );
  });

  it('--terms-file: UTF-8 text as the server keeps it (BOM and CRLF gone); empty is none', () => {
    expect(flagTerms(bytes('\uFEFFBe discreet.\r\nThank you.\r\n'), 't.txt')).toBe(
      'Be discreet.\nThank you.',
    );
    expect(flagTerms(bytes(' \n'), 't.txt')).toBeNull();
  });

  it('--terms-file: not UTF-8, control characters, too long: refused in words', async () => {
    expect(await usageError(() => flagTerms(new Uint8Array([0xff, 0xfe, 0x41]), 't.txt'))).toBe(
      '--terms-file: t.txt is not UTF-8 text',
    );
    expect(await usageError(() => flagTerms(bytes('a\u0007b'), 't.txt'))).toBe(
      '--terms-file: no control characters but line breaks and tabs',
    );
    expect(await usageError(() => flagTerms(bytes('x'.repeat(20_001)), 't.txt'))).toBe(
      '--terms-file: at most 20000 characters',
    );
    expect(await usageError(() => flagTerms(new Uint8Array(2 * 1024 * 1024), 'big.txt'))).toBe(
      '--terms-file: at most 20000 characters, and big.txt has 2097152 bytes',
    );
  });
});

describe('the API fields they make', () => {
  it('create: what asks nothing is left out', async () => {
    const read = files({ 'nda.txt': 'Confidential.', 'empty.txt': '' });
    expect(await readerRules({}, true)).toEqual({});
    expect(
      await readerRules(
        { identify: 'email', termsFile: 'nda.txt', allow: ['acme.com'], watermark: true },
        true,
        read,
      ),
    ).toEqual({ identify: 'email', terms: 'Confidential.', allow: ['acme.com'], watermark: true });
    expect(
      await readerRules({ identify: 'email', termsFile: 'empty.txt', allow: [''] }, true, read),
    ).toEqual({ identify: 'email' });
  });

  it('create: what needs the reader’s address, without --identify, is refused here', async () => {
    expect(await usageError(() => readerRules({ watermark: true }, true))).toBe(
      "--watermark needs the reader's address: add --identify email (or verified_email)",
    );
    expect(
      await usageError(() =>
        readerRules({ identify: 'none', allow: ['a.org'], notify: true }, true),
      ),
    ).toBe(
      "--allow and --notify need the reader's address: add --identify email (or verified_email)",
    );
    // terms alone ask nothing of who reads: allowed
    expect(await readerRules({ termsFile: 'nda.txt' }, true, files({ 'nda.txt': 'Yes.' }))).toEqual(
      { terms: 'Yes.' },
    );
  });

  it('edit: null clears (an empty file, --allow "", the --no- forms); the server judges the rest', async () => {
    const read = files({ 'empty.txt': '' });
    expect(await readerRules({ terms: false, allow: false, watermark: false }, false)).toEqual({
      terms: null,
      allow: null,
      watermark: false,
    });
    expect(await readerRules({ termsFile: 'empty.txt', allow: [''] }, false, read)).toEqual({
      terms: null,
      allow: null,
    });
    // the link may ask for an address already: only the server knows
    expect(await readerRules({ notify: true }, false)).toEqual({ notify: true });
    expect(
      await usageError(() => readerRules({ termsFile: 'empty.txt', terms: false }, false, read)),
    ).toBe('--terms-file and --no-terms: give one of them');
  });

  it('a terms file that is not there: in words', async () => {
    expect(await usageError(() => readerRules({ termsFile: '/no/such/terms.txt' }, true))).toBe(
      '--terms-file: no such file: /no/such/terms.txt',
    );
  });
});

describe('the server’s refusals, in the flags’ words', () => {
  it.each([
    [
      'identify "verified_email" (a code is mailed) needs mail, and this service has no mail server: its operator starts it with --smtp-url',
      '--identify verified_email (a code is mailed) needs mail, and this service has no mail server: its operator starts it with --smtp-url',
    ],
    [
      'watermark and notify need the reader\'s address: set identify to "email" or "verified_email"',
      "--watermark and --notify need the reader's address: add --identify email (or verified_email)",
    ],
    [
      'Invalid allow: a list of at most 200 addresses or domains, or null for anyone',
      '--allow: a list of at most 200 addresses or domains',
    ],
    [
      'Invalid identify: one of "none", "email", "verified_email"',
      '--identify: one of "none", "email", "verified_email"',
    ],
    [
      'an allow entry is not an email address: it has no @',
      '--allow: an entry is not an email address: it has no @',
    ],
    [
      'allow entry 2 is not an email address: it has no @',
      '--allow: entry 2 is not an email address: it has no @',
    ],
    // a label that says "notify" is not a flag
    [
      'A flipbook has at most 2000 share links: revoke one',
      'A flipbook has at most 2000 share links: revoke one',
    ],
  ])('names the flags, not the fields: %s', (refusal, inFlagWords) => {
    expect(inShareFlagWords(refusal)).toBe(inFlagWords);
  });
});
