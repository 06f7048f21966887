// The words a watermark draws (src/pdf/stampPdf.ts on a PDF, src/pdf/stampImage.ts on a page
// image), written in Latin-1 so that both can draw every character with what every machine has:
// PDF's standard Helvetica (no font embedded, WinAnsiEncoding) and the DejaVu fonts. Neither
// covers CJK (only DejaVu is installed; no CJK font is), so a character outside Latin-1 becomes:
// - in a domain (after an `@`): the domain's punycode, its standard ASCII form that mail
//   delivers to the same place (`user@例え.jp` → `user@xn--r8jz45g.jp`);
// - anywhere else: `U+XXXX` (`用户@x.cn` → `U+7528U+6237@x.cn`), ugly but exact, so that the
//   mark still names one reader; a person can read it back.
// The mark's purpose is to say who a copy was made for: an exact ASCII form beats glyph boxes.
import { domainToASCII } from 'node:url';

/** Printable Latin-1: what WinAnsiEncoding draws the same (0x80-0x9F differ, and are controls). */
const DRAWABLE = /^[\x20-\x7e\xa0-\xff]$/u;
const DOMAIN = /@([^\s@]+)/gu;

/** `text` with its domains in punycode and any other character outside Latin-1 as `U+XXXX`. */
export const stampText = (text: string): string => {
  const withDomains = text.replace(DOMAIN, (whole, domain: string) => {
    if ([...domain].every((c) => DRAWABLE.test(c))) return whole;
    // A trailing full stop or comma belongs to the sentence, not the domain.
    const [, name = domain, tail = ''] = /^(.*?)([.,;:)]*)$/u.exec(domain) ?? [];
    const ascii = domainToASCII(name);
    return ascii ? `@${ascii}${tail}` : whole;
  });
  let out = '';
  for (const char of withDomains.replace(/\s+/gu, ' ').trim()) {
    out += DRAWABLE.test(char)
      ? char
      : `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return out;
};
