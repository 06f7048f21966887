// Checks a received upload, or refuses it with a reason a person can act on. Order matters: a
// missing file is the spec's 400; then what the bytes are; then the plan's limits. Nothing is
// stored here: the caller commits the original under the workspace lock, right before appending
// its version, so a refused upload (a quota, a bad file) never leaves an original behind. The
// caller removes the temporary file whatever happens (committing moves it out of the way).
import { InvalidInput, RuleBroken } from '../domain/errors.ts';
import type { UploadedFile } from '../domain/flipbook/flipbook.ts';
import { checkPageCount, checkUploadSize } from '../domain/plans.ts';
import type { Plan } from '../domain/workspace/workspace.ts';
import { inspectPdf } from '../pdf/inspectPdf.ts';
import type { ReceivedFile } from './received.ts';

export type AcceptedPdf = {
  file: UploadedFile;
  pages: number | null;
  /** the upload's temporary in the blob store, for `commitOriginal` */
  ref: string;
};

export const acceptPdf = async (
  plan: Plan,
  received: ReceivedFile | null,
): Promise<AcceptedPdf> => {
  if (!received) throw new InvalidInput('file is required');
  if (received.size === 0) throw new RuleBroken('The file is empty');
  if (!received.looksLikePdf) {
    throw new RuleBroken('File is not a PDF: it has no %PDF- header');
  }
  checkUploadSize(plan, received.size);
  const inspection = await inspectPdf(received.path);
  if (inspection.kind === 'unreadable') {
    throw new RuleBroken(`File is not a readable PDF: ${inspection.reason}`);
  }
  // A password-protected PDF is accepted here; processing records why it cannot be rendered.
  const pages = inspection.kind === 'readable' ? inspection.pages : null;
  if (pages !== null) checkPageCount(plan, pages);
  return {
    ref: received.ref,
    file: {
      name: received.name,
      type: 'pdf',
      mimeType: 'application/pdf',
      size: received.size,
      checksum: received.sha256,
    },
    pages,
  };
};
