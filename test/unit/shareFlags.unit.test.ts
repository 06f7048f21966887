// `flipbook share create` in its own words (packages/cli/src/shareFlags.ts): its flags checked by
// the server's rules before anything is sent, and what the server still refuses said with the
// flags' names (--expires), not the API's fields (expires_at, "or null for none").
import { describe, expect, it } from 'vitest';
import {
  flagExpires,
  flagLabel,
  flagPassword,
  inShareFlagWords,
} from '../../packages/cli/src/shareFlags.ts';

const NOW = new Date('2026-03-04T05:06:07.000Z');

const usageError = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    expect((error as { exitCode: number }).exitCode).toBe(2);
    return (error as Error).message;
  }
  throw new Error('expected a usage error');
};

describe('share create, in the command’s words', () => {
  it('--expires: a date-time or days from now, in the future, within ten years', () => {
    expect(flagExpires(undefined, NOW)).toBeUndefined();
    expect(flagExpires('30d', NOW)).toBe('2026-04-03T05:06:07.000Z');
    expect(flagExpires('2027-01-31T17:00:00Z', NOW)).toBe('2027-01-31T17:00:00.000Z');
    expect(usageError(() => flagExpires('tomorrow', NOW))).toBe(
      '--expires: a date and time (2027-01-31T17:00:00Z) or a number of days (30d), got "tomorrow"',
    );
    expect(usageError(() => flagExpires('2020-01-01T00:00:00Z', NOW))).toBe(
      '--expires: it must be in the future, got "2020-01-01T00:00:00Z"',
    );
    // days the calendar does not have, which Date would move to the next month
    for (const impossible of [
      '2027-02-30',
      '2027-02-29',
      '2027-06-31T10:00',
      '2027-04-31T00:00:00Z',
    ]) {
      expect(usageError(() => flagExpires(impossible, NOW))).toBe(
        `--expires: a date and time (2027-01-31T17:00:00Z) or a number of days (30d), got "${impossible}"`,
      );
    }
    expect(flagExpires('2028-02-29', NOW)).toBe('2028-02-29T00:00:00.000Z'); // a leap year's
    expect(usageError(() => flagExpires('0d', NOW))).toBe(
      '--expires: it must be in the future, got "0d"',
    );
    expect(usageError(() => flagExpires('2999-01-01T00:00:00Z', NOW))).toBe(
      '--expires: at most 10 years from now, got "2999-01-01T00:00:00Z"',
    );
  });

  it('the password and the label, by the server’s rules, named as the command names them', () => {
    expect(flagPassword('correct horse')).toBe('correct horse');
    expect(usageError(() => flagPassword('short'))).toBe(
      '--password-stdin: 8 to 256 characters, not only spaces',
    );
    expect(usageError(() => flagPassword('tab\tinside'))).toBe(
      '--password-stdin: no control or invisible characters (line breaks, tabs, NUL, zero-width)',
    );
    expect(flagLabel('  Jane Doe, Acme ')).toBe('Jane Doe, Acme');
    expect(usageError(() => flagLabel('x'.repeat(201)))).toBe('The label: at most 200 characters');
    expect(usageError(() => flagLabel('   '))).toBe('The label: it must not be blank');
  });

  it.each([
    [
      'Invalid expires_at: a date and time (RFC 3339, e.g. 2027-01-31T17:00:00Z), or null',
      '--expires: a date and time (RFC 3339, e.g. 2027-01-31T17:00:00Z)',
    ],
    ['Invalid expires_at: it must be in the future', '--expires: it must be in the future'],
    [
      'Invalid password: 8 to 256 characters, or null for none',
      '--password-stdin: 8 to 256 characters',
    ],
    ['label is required', 'A label is required (flipbook share create FLIPBOOK_ID LABEL)'],
    ['Flipbook not found', 'Flipbook not found'],
  ])(
    'what the server refuses, with the flags’ names and without its null: %s',
    (refusal, inFlagWords) => {
      expect(inShareFlagWords(refusal)).toBe(inFlagWords);
    },
  );
});
