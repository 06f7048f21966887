// Text PostgreSQL cannot store (NUL, unpaired surrogates) is the client's 400, named by field.
import { describe, expect, it } from 'vitest';
import { InvalidInput, isOutOfSpace } from '../../src/domain/errors.ts';
import { storableText } from '../../src/domain/storableText.ts';
import { parseListQuery } from '../../src/http/listQuery.ts';

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInput);
    expect((error as InvalidInput).status).toBe(400);
    return (error as Error).message;
  }
  throw new Error('not refused');
};

describe('storableText', () => {
  it('passes ordinary text through unchanged, including paired surrogates and other controls', () => {
    for (const text of ['', 'Annual report', 'Ünïcødé 😀 文字', 'tab\there\nnewline', '\u007f']) {
      expect(storableText('title', text)).toBe(text);
    }
  });

  it('refuses a NUL anywhere, naming the field', () => {
    for (const text of ['\u0000', 'a\u0000b', 'end\u0000']) {
      expect(refusal(() => storableText('title', text))).toBe(
        'Invalid title: it contains a NUL character',
      );
    }
  });

  it('refuses an unpaired high or low surrogate, naming the field', () => {
    for (const text of ['\ud800', 'a\udc00b', 'x\ud83d', '\ude00y']) {
      expect(refusal(() => storableText('search', text))).toBe(
        'Invalid search: it contains an unpaired UTF-16 surrogate',
      );
    }
  });

  it('is what the list query applies to search', () => {
    expect(refusal(() => parseListQuery(new URLSearchParams('search=%00')))).toBe(
      'Invalid search: it contains a NUL character',
    );
    // Percent-decoding turns an encoded lone surrogate into U+FFFD: it cannot reach the store.
    expect(parseListQuery(new URLSearchParams('search=%ED%A0%80')).search).toBe(
      '\ufffd\ufffd\ufffd',
    );
  });
});

describe('isOutOfSpace', () => {
  it("is true for ENOSPC, EDQUOT and PostgreSQL's disk_full only", () => {
    const errno = (code: string) => Object.assign(new Error(code), { code });
    expect(isOutOfSpace(errno('ENOSPC'))).toBe(true);
    expect(isOutOfSpace(errno('EDQUOT'))).toBe(true);
    expect(isOutOfSpace(errno('53100'))).toBe(true);
    expect(isOutOfSpace(errno('53200'))).toBe(false); // out_of_memory: not a full disk
    expect(isOutOfSpace(errno('EACCES'))).toBe(false);
    expect(isOutOfSpace(new Error('plain'))).toBe(false);
    expect(isOutOfSpace(null)).toBe(false);
  });
});
