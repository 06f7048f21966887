// Right-to-left text in logical order. pdftotext (poppler 22) writes a right-to-left run in
// visual order, reversed, wrapped in embedding marks: RLE ... PDF, with left-to-right pieces
// inside as LRE ... PDF (TextOutputDev's reorderText). Stored like that, an Arabic or Hebrew word
// is spelt backwards: search finds nothing and screen readers read it backwards. This undoes that
// reordering exactly (each RLE run's pieces in reverse order, its own characters reversed, LRE
// pieces as they are) and drops the marks, which have done their work.
// Arabic presentation forms (U+FB50–U+FDFF, U+FE70–U+FEFE), which some fonts map their glyphs
// to, become the letters people type (NFKC), so a search for a word finds it.
const RLE = '\u202b';
const LRE = '\u202a';
const POP = '\u202c';

type Run = { rtl: boolean; pieces: (string | Run)[] };

export const logicalOrder = (text: string): string => {
  const reordered = /[\u202a-\u202c]/.test(text) ? reorder(text) : text;
  return reordered.replace(/[\ufb50-\ufdff\ufe70-\ufefe]+/g, (forms) => forms.normalize('NFKC'));
};

const reorder = (text: string) => {
  const root: Run = { rtl: false, pieces: [] };
  const stack: Run[] = [root];
  let plain = '';
  const flush = () => {
    if (plain) (stack.at(-1) as Run).pieces.push(plain);
    plain = '';
  };
  for (const char of text) {
    if (char === RLE || char === LRE) {
      flush();
      const run: Run = { rtl: char === RLE, pieces: [] };
      (stack.at(-1) as Run).pieces.push(run);
      stack.push(run);
    } else if (char === POP) {
      flush();
      if (stack.length > 1) stack.pop(); // a stray mark is dropped
    } else {
      plain += char;
    }
  }
  flush();
  return render(root);
};

const render = (run: Run): string => {
  const parts = run.pieces.map((piece) =>
    typeof piece === 'string'
      ? run.rtl
        ? Array.from(piece).reverse().join('')
        : piece
      : render(piece),
  );
  return (run.rtl ? parts.reverse() : parts).join('');
};
