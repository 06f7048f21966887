// Readers' email addresses (src/domain/readerEmail.ts): what is accepted and how it is written,
// what is refused and the words it is refused in, which never repeat the address.
import { describe, expect, it } from 'vitest';
import { InvalidInput } from '../../src/domain/errors.ts';
import { isSealedEmail, readerEmail } from '../../src/domain/readerEmail.ts';

const local64 = 'a'.repeat(64);
// 63 + 1 + 63 + 1 + 63 + 1 + 57 = 249-character domain, so `x@` + it is 251 characters
const longDomain = `${'d'.repeat(63)}.${'e'.repeat(63)}.${'f'.repeat(63)}.${'g'.repeat(53)}.com`;

describe('a reader’s email address', () => {
  it.each([
    // given, address (mailed, sealed), identity (tells readers apart)
    ['bob@example.com', 'bob@example.com', 'bob@example.com'],
    ['  Bob@Example.COM ', 'Bob@example.com', 'bob@example.com'],
    ['first.last+tag@sub.example.co.uk', 'first.last+tag@sub.example.co.uk', null],
    ["o'brien@example.ie", "o'brien@example.ie", null],
    ['x!#$%&*/=?^_`{|}~-@example.org', 'x!#$%&*/=?^_`{|}~-@example.org', null],
    ['bob@Bücher.Example', 'bob@xn--bcher-kva.example', null],
    ['bob@xn--bcher-kva.example', 'bob@xn--bcher-kva.example', null],
    ['bob@ｅｘａｍｐｌｅ.com', 'bob@example.com', null],
    ['bob@faß.de', 'bob@xn--fa-hia.de', null],
    ['Dörte@Bücher.example', 'Dörte@xn--bcher-kva.example', 'dörte@xn--bcher-kva.example'],
    // decomposed ö (o + U+0308) is the same reader as the composed one
    ['Do\u0308rte@example.de', 'Dörte@example.de', 'dörte@example.de'],
    ['用户@例子.广告', '用户@xn--fsqu00a.xn--4rr70v', null],
    ['a@b-c.d1', 'a@b-c.d1', null],
    [`${local64}@example.com`, `${local64}@example.com`, null],
    [`x@${longDomain}`, `x@${longDomain}`, null],
  ])('%j is %j', (given, address, identity) => {
    expect(readerEmail(given)).toEqual({ address, identity: identity ?? address });
    // a normalised address is its own normal form: parsing it again changes nothing
    expect(readerEmail(address)).toEqual(readerEmail(given));
  });

  it.each([
    ['', 'it is empty'],
    ['   ', 'it is empty'],
    ['bob', 'it has no @'],
    ['bob.example.com', 'it has no @'],
    ['@example.com', 'nothing comes before the @'],
    ['bob@', 'nothing comes after the @'],
    ['bob@x@example.com', 'it has more than one @'],
    ['bob@example.com, eve@example.com', 'give one address'],
    ['bob@example.com;eve@example.com', 'give one address'],
    ['Bob <bob@example.com>', 'give one address'],
    ['two words@example.com', 'give one address'],
    ['bob@exa mple.com', 'give one address'],
    ['bob\n@example.com', 'control characters'],
    ['bob@exa\tmple.com', 'control characters'],
    ['bob\u3000x@example.com', 'give one address'],
    ['bob\u0000@example.com', 'control characters'],
    ['bob\u200b@example.com', 'control characters'],
    ['"john doe"@example.com', 'quoted local parts'],
    ['"bob"@example.com', 'quoted local parts'],
    ['.bob@example.com', 'a character an address cannot have'],
    ['bob.@example.com', 'a character an address cannot have'],
    ['bo..b@example.com', 'a character an address cannot have'],
    ['bo(b)@example.com', 'a character an address cannot have'],
    ['bo\\b@example.com', 'a character an address cannot have'],
    [`${local64}a@example.com`, 'longer than 64 bytes'],
    [`${'é'.repeat(33)}@example.com`, 'longer than 64 bytes'],
    ['bob@localhost', 'its domain has no dot'],
    ['bob@[192.0.2.1]', 'IP address'],
    ['bob@192.0.2.1', 'IP address'],
    ['bob@1.2.3', 'IP address'],
    ['bob@0x7f.1', 'IP address'],
    ['bob@example.123', 'IP address'],
    ['bob@example..com', 'not a host name'],
    ['bob@.example.com', 'not a host name'],
    ['bob@example.com.', 'not a host name'],
    ['bob@-example.com', 'not a host name'],
    ['bob@example-.com', 'not a host name'],
    ['bob@ex_ample.com', 'not a host name'],
    ['bob@ex%41mple.com', 'not a host name'],
    ['bob@xn--zz.com', 'not a host name'],
    [`bob@${'a'.repeat(64)}.com`, 'not a host name'],
    ['bob@xn--a.com', 'not a host name'],
    ['bob@a\u200cb.com', 'control characters'],
    [
      `${'x'.repeat(64)}@${'y'.repeat(63)}.${'z'.repeat(63)}.${'w'.repeat(63)}.com`,
      'longer than 254 characters',
    ],
    // 248 characters as typed, 283 once each label of its domain is in punycode
    [
      `${'x'.repeat(40)}@${Array(5)
        .fill(`${'ü'.repeat(20)}${'b'.repeat(20)}`)
        .join('.')}.de`,
      'once its domain is written in ASCII',
    ],
    ['bob@1\u30022\u30023', 'IP address'],
    ['bob@example.com/x', 'not a host name'],
    ['bob@example.com:25', 'not a host name'],
    ['b\u00f6b@example.com\u00ad', 'control characters'],
  ])('%j is refused: %s', (given, why) => {
    let error: unknown;
    try {
      readerEmail(given);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(InvalidInput);
    const message = (error as InvalidInput).message;
    expect(message).toMatch(/^the address is not an email address: /);
    expect(message).toContain(why);
    // the words never repeat what was typed (a message may reach a log; an address must not)
    const typed = given.trim();
    if (typed.length > 3) expect(message).not.toContain(typed);
    expect(message).not.toContain('example.com');
  });

  it('names the field it was given', () => {
    expect(() => readerEmail('bob', 'allow[2]')).toThrow(
      'allow[2] is not an email address: it has no @',
    );
  });

  it('takes the 254th character, not the 255th', () => {
    const at254 = `${'x'.repeat(64)}@${'y'.repeat(63)}.${'z'.repeat(63)}.${'w'.repeat(57)}.com`;
    expect(at254).toHaveLength(254);
    expect(readerEmail(at254).address).toBe(at254);
    expect(() =>
      readerEmail(`${at254.slice(0, 64)}${at254.slice(64).replace('.com', '.comm')}`),
    ).toThrow('longer than 254 characters');
  });

  it('knows a sealed identity read back from an event from anything else', () => {
    const kid = 'k'.repeat(43);
    const ct = 'c'.repeat(48);
    expect(isSealedEmail({ kid, ct })).toBe(true);
    for (const wrong of [
      null,
      'x',
      { kid },
      { kid, ct: 7 },
      { kid: `${kid}=`, ct },
      { kid: kid.slice(1), ct },
      { kid, ct: 'c'.repeat(39) },
      { kid, ct: `${ct}+/` },
    ]) {
      expect(isSealedEmail(wrong)).toBe(false);
    }
  });
});
