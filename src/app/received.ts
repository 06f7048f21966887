// An upload as the use cases receive it: its text fields and the file already on disk (streamed
// there and hashed by the HTTP side, src/http/upload.ts).

export type ReceivedFile = {
  /** the upload in the blob store, for `commitOriginal` and `discard` */
  ref: string;
  /** a local file of the same bytes, for inspecting them (pdfinfo reads files) */
  path: string;
  name: string;
  mimeType: string;
  size: number;
  sha256: string;
};

export type ReceivedUpload = { fields: Record<string, string>; file: ReceivedFile | null };
