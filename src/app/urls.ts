// The public addresses the API's answers carry: the reader, page images, originals.

export type Urls = {
  reader: (flipbookId: string) => string;
  page: (versionId: string, position: number, size: 'max' | 'mid' | 'min') => string;
  /** Where a version's page files live: `<pages>1/mid.jpg`, `<pages>text.json`. */
  pages: (versionId: string) => string;
  original: (versionId: string) => string;
};

/** `publicUrl` is read on each use: with --port 0 it is known only once the server listens. */
export const urlsFor = (publicUrl: () => string): Urls => {
  const base = () => publicUrl().replace(/\/+$/, '');
  return {
    reader: (flipbookId) => `${base()}/f/${flipbookId}`,
    page: (versionId, position, size) =>
      `${base()}/files/pages/${versionId}/${position}/${size}.jpg`,
    pages: (versionId) => `${base()}/files/pages/${versionId}/`,
    original: (versionId) => `${base()}/files/originals/${versionId}`,
  };
};
