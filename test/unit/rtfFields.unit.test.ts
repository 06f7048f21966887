// disarmRtf (src/pdf/rtfFields.ts): an RTF's include fields and linked objects are disarmed
// before LibreOffice reads it (it embedded `INCLUDEPICTURE "file:///…"` in the PDF: found by
// issue 45's independent tester); web and mail hyperlinks are kept; nothing else changes.
import { describe, expect, it } from 'vitest';
import { disarmRtf } from '../../src/pdf/rtfFields.ts';

const rtf = (body: string) => Buffer.from(`{\\rtf1\\ansi ${body}}`, 'latin1');
const disarmed = (body: string) => disarmRtf(rtf(body)).toString('latin1');

describe('disarmRtf', () => {
  it('disarms INCLUDEPICTURE and INCLUDETEXT fields, however the instruction is spelled', () => {
    for (const field of [
      '{\\field{\\*\\fldinst INCLUDEPICTURE "file:///tmp/secret.png" \\\\d}{\\fldrslt pic}}',
      '{\\field{\\*\\fldinst{ INCLUDETEXT "/etc/passwd"}}{\\fldrslt x}}',
      // split by a group, and a hex escape for the I
      '{\\field{\\*\\fldinst {\\\'49NCLUDE}{PICTURE "file:///x.png"}}{\\fldrslt y}}',
      '{\\field{\\*\\fldinst\\b0 IMPORT "file:///x.wmf"}{\\fldrslt z}}',
    ]) {
      const out = disarmed(field);
      expect(out).not.toMatch(/\\fldinst(?![a-z])/);
      expect(out).toContain('\\flddisarmed');
      expect(out).toContain('\\fldrslt'); // the saved result stays to be shown
    }
  });

  it('keeps web and mail hyperlinks', () => {
    const link = '{\\field{\\*\\fldinst HYPERLINK "https://example.org/a"}{\\fldrslt here}}';
    expect(disarmed(link)).toBe(rtf(link).toString('latin1'));
    const mail = '{\\field{\\*\\fldinst{HYPERLINK "mailto:a@example.org"}}{\\fldrslt mail}}';
    expect(disarmed(mail)).toBe(rtf(mail).toString('latin1'));
    // a HYPERLINK to a file is disarmed like the rest
    expect(disarmed('{\\field{\\*\\fldinst HYPERLINK "file:///etc"}{\\fldrslt f}}')).toContain(
      '\\flddisarmed',
    );
  });

  it('makes linked objects embedded ones and leaves other bytes as they were', () => {
    expect(disarmed('{\\object\\objautlink\\objw10 x}')).toBe(
      rtf('{\\object\\objemb\\objw10 x}').toString('latin1'),
    );
    const plain = Buffer.from([...rtf("caf\\'e9 \\u233 ?").subarray(0, -1), 0xe9, 0x7d]);
    expect(disarmRtf(plain).equals(plain)).toBe(true);
  });
});
