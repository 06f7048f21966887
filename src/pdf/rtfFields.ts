// An RTF's fields, disarmed before LibreOffice reads it (issue 45's independent tester): Word's
// INCLUDEPICTURE and INCLUDETEXT fields name a file (`file:///etc/...`, another flipbook's page
// in the blob store) and LibreOffice's RTF import embeds it in the PDF, whatever the profile
// says (the .docx, .odt and .pptx imports honour it; the RTF one does not). So every field
// instruction (`\fldinst`) that is not a web or mail HYPERLINK is renamed to a control word no
// reader knows: the field then shows its result as saved in the document (`\fldrslt`), and
// nothing is fetched. Linked OLE objects (`\objautlink`, `\objlink`) become embedded ones (their
// saved picture). Control words cannot be escaped or spelled otherwise (RTF is case-sensitive),
// so every `\fldinst` is found; the instruction's text after it may be obfuscated (groups, hex
// escapes), so it is read with those undone and anything not plainly a HYPERLINK is disarmed.

const HYPERLINK = /^\s*HYPERLINK\s+"?(https?:|mailto:)/i;

/** The instruction as a reader would see it: groups, control words and escapes undone. */
const instructionAt = (text: string, from: number) =>
  text
    .slice(from, from + 2048)
    .replace(/\\'([0-9a-fA-F]{2})/g, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    )
    .replace(/\\[a-zA-Z]+-?\d* ?/g, '')
    .replace(/[{}]/g, '');

export const disarmRtf = (bytes: Buffer): Buffer => {
  // latin1 keeps every byte as one character: the output has the same bytes but the renames.
  const text = bytes.toString('latin1');
  const out = text
    .replace(/\\fldinst(?![a-zA-Z])/g, (word, at: number) =>
      HYPERLINK.test(instructionAt(text, at + word.length)) ? word : '\\flddisarmed',
    )
    .replace(/\\obj(aut)?link(?![a-zA-Z])/g, '\\objemb');
  return Buffer.from(out, 'latin1');
};
