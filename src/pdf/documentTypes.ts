// The kinds of upload the service takes (issue 45), once: each with its family, the MIME type
// the version records and the names people know it by. Uploads are told by their content
// (./documentKind.ts); these are what is said about them afterwards, and the words of a refusal.
import type { DocumentKind } from './documentKind.ts';

type Accepted = Exclude<DocumentKind, 'ooxml-encrypted'>;

const TYPES: Record<Accepted, { family: 'pdf' | 'office' | 'image'; mime: string }> = {
  pdf: { family: 'pdf', mime: 'application/pdf' },
  docx: {
    family: 'office',
    mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  },
  doc: { family: 'office', mime: 'application/msword' },
  odt: { family: 'office', mime: 'application/vnd.oasis.opendocument.text' },
  rtf: { family: 'office', mime: 'application/rtf' },
  pptx: {
    family: 'office',
    mime: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  },
  ppt: { family: 'office', mime: 'application/vnd.ms-powerpoint' },
  odp: { family: 'office', mime: 'application/vnd.oasis.opendocument.presentation' },
  xlsx: {
    family: 'office',
    mime: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  },
  xls: { family: 'office', mime: 'application/vnd.ms-excel' },
  ods: { family: 'office', mime: 'application/vnd.oasis.opendocument.spreadsheet' },
  jpeg: { family: 'image', mime: 'image/jpeg' },
  png: { family: 'image', mime: 'image/png' },
  webp: { family: 'image', mime: 'image/webp' },
  tiff: { family: 'image', mime: 'image/tiff' },
  zip: { family: 'image', mime: 'application/zip' },
};

export const mimeTypeOf = (kind: Accepted) => TYPES[kind].mime;
export const isOfficeType = (type: string) => TYPES[type as Accepted]?.family === 'office';
export const isImageType = (type: string) => TYPES[type as Accepted]?.family === 'image';

/** What the upload endpoints take, in words (a refusal's, the API documentation's). */
export const ACCEPTED_WORDS =
  'a PDF; a Word, PowerPoint or Excel document (.docx .doc .pptx .ppt .xlsx .xls), an ' +
  'OpenDocument one (.odt .odp .ods) or RTF; or an image (JPEG, PNG, WebP, TIFF), or a ZIP ' +
  'of images';
export const ACCEPTED_WORDS_NO_OFFICE =
  'a PDF; or an image (JPEG, PNG, WebP, TIFF), or a ZIP of images';
