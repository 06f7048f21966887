// Checks a received upload, or refuses it with a reason a person can act on. Order matters: a
// missing file is the spec's 400; then the plan's size limit (before a byte is read); then what
// the bytes are, told by their content (src/pdf/documentKind.ts: the name and the declared type
// are not asked); then the kind's own checks. Nothing is stored here: the caller commits the
// original under the workspace lock, right before appending its version, so a refused upload (a
// quota, a bad file) never leaves an original behind. The caller removes the temporary file
// whatever happens (committing moves it out of the way).
//
// A file of a kind the service does not take is the spec's 422 ("business error: ... file
// format"), in words that list what it takes (issue 45 asked for 415; the spec's code stands).
import { InvalidInput, RuleBroken } from '../domain/errors.ts';
import type { UploadedFile } from '../domain/flipbook/flipbook.ts';
import { checkPageCount, checkUploadSize } from '../domain/plans.ts';
import type { Plan } from '../domain/workspace/workspace.ts';
import { refuseUnpacked } from '../pdf/documentKind.ts';
import { ACCEPTED_WORDS, ACCEPTED_WORDS_NO_OFFICE, mimeTypeOf } from '../pdf/documentTypes.ts';
import { imagePages } from '../pdf/imagesPdf.ts';
import { inspectPdf } from '../pdf/inspectPdf.ts';
import { sniffFile } from '../pdf/sniffFile.ts';
import type { ReceivedFile } from './received.ts';

export type AcceptedUpload = {
  file: UploadedFile;
  /** known for a PDF and an image; an office document's are known once it is converted */
  pages: number | null;
  /** the upload's temporary in the blob store, for `commitOriginal` */
  ref: string;
};

export const acceptUpload = async (
  plan: Plan,
  received: ReceivedFile | null,
  convertsOffice = true,
): Promise<AcceptedUpload> => {
  if (!received) throw new InvalidInput('file is required');
  if (received.size === 0) throw new RuleBroken('The file is empty');
  checkUploadSize(plan, received.size);
  const sniffed = await sniffFile(received.path);
  const takes = convertsOffice ? ACCEPTED_WORDS : ACCEPTED_WORDS_NO_OFFICE;
  if (sniffed.kind === 'unknown') {
    // A ZIP or an OLE2 file that cannot be read is a damaged document more likely than another
    // kind of file: said so, with what was wrong.
    const container = /^(a damaged or unusual ZIP|a damaged OLE2 file|an Office file)/.test(
      sniffed.why,
    );
    throw new RuleBroken(
      sniffed.refused
        ? sniffed.why
        : container
          ? `The file cannot be read as an office document: ${sniffed.why}`
          : `The file is not a kind this service takes (${takes})`,
    );
  }
  const accepted = (type: UploadedFile['type'], mimeType: string, pages: number | null) => ({
    ref: received.ref,
    file: { name: received.name, type, mimeType, size: received.size, checksum: received.sha256 },
    pages,
  });
  if (sniffed.family === 'pdf') {
    const inspection = await inspectPdf(received.path);
    if (inspection.kind === 'unreadable') {
      throw new RuleBroken(`File is not a readable PDF: ${inspection.reason}`);
    }
    // A password-protected PDF is accepted here; processing records why it cannot be rendered.
    const pages = inspection.kind === 'readable' ? inspection.pages : null;
    if (pages !== null) checkPageCount(plan, pages);
    return accepted('pdf', 'application/pdf', pages);
  }
  if (sniffed.family === 'image') {
    // A folder of images: one page an image (a TIFF's frames are counted once it is made).
    const pages = sniffed.images ? sniffed.images.length : await imagePages(received.path);
    if (typeof pages === 'string') throw new RuleBroken(pages);
    checkPageCount(plan, pages);
    const kind = sniffed.kind as 'jpeg' | 'png' | 'webp' | 'tiff' | 'zip';
    return accepted(kind, mimeTypeOf(kind), pages);
  }
  if (!convertsOffice) {
    throw new RuleBroken(
      `This server does not convert office documents (it runs without LibreOffice): upload ${takes}`,
    );
  }
  const bomb = sniffed.zip && refuseUnpacked(sniffed.zip);
  if (bomb) throw new RuleBroken(bomb);
  // An OOXML saved with a password is an OLE2 container whatever it was: its name says which
  // (LibreOffice opens Excel's default password; processing says when it cannot).
  const kind =
    sniffed.kind === 'ooxml-encrypted'
      ? ((/\.(docx|pptx|xlsx)$/i.exec(received.name)?.[1]?.toLowerCase() ?? 'docx') as
          | 'docx'
          | 'pptx'
          | 'xlsx')
      : sniffed.kind;
  return accepted(kind, mimeTypeOf(kind), null);
};
