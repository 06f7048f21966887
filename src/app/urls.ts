// The public addresses the API's answers carry: the reader, page images, originals.

export type Urls = {
  reader: (flipbookId: string) => string;
  /** a share link's reader, by its token */
  shareLink: (token: string) => string;
  /** a preview's reader, by its version (./previewLinks.ts signs it) */
  preview: (versionId: string) => string;
  page: (versionId: string, position: number, size: 'max' | 'mid' | 'min') => string;
  /** Where a version's page files live on the daemon: `<pages>text.json`, `<pages>1/words.json`. */
  pages: (versionId: string) => string;
  /** Where its page images live: the daemon's `pages`, or the --blob-public-url's. */
  images: (versionId: string) => string;
  /** the origin page images come from when it is not the daemon's (for the reader's CSP) */
  imageOrigin: string | null;
  original: (versionId: string) => string;
  /**
   * The same addresses for a non-public book's reader let in with a grant (readerAccess.ts): its
   * files under /a/<grant>/ on the daemon, never on a CDN.
   */
  granted: (grant: string) => Urls;
  /** the same for a preview's reader: its files under /p/<token>/ on the daemon, never on a CDN */
  previewed: (token: string) => Urls;
  /** the same without --blob-public-url: a non-public book's images are never on a CDN */
  onDaemon: () => Urls;
};

/**
 * `publicUrl` is read on each use: with --port 0 it is known only once the server listens.
 * `blobPublicUrl` (--blob-public-url) is where the bucket's keys are public (a CDN, a public
 * bucket): page images are addressed there by their keys, `pages/<version>/<position>/mid.jpg`.
 * `max.jpg` stays on the daemon: it may not be rendered yet, and the daemon renders it when asked
 * (docs/processing.md, "The largest rendition"), where a CDN would answer 404. Originals stay on
 * the daemon too, which checks that downloads are allowed.
 */
export const urlsFor = (
  publicUrl: () => string,
  blobPublicUrl?: string,
  /** a preview's token (./previewLinks.ts); without it, no preview URL can be made */
  previewToken: (versionId: string) => string = noPreviews,
): Urls => {
  const base = () => publicUrl().replace(/\/+$/, '');
  const blobBase = blobPublicUrl?.replace(/\/+$/, '');
  const pages = (versionId: string) => `${base()}/files/pages/${versionId}/`;
  const images = (versionId: string) =>
    blobBase ? `${blobBase}/pages/${versionId}/` : pages(versionId);
  return {
    reader: (flipbookId) => `${base()}/f/${flipbookId}`,
    shareLink: (token) => `${base()}/s/${token}`,
    preview: (versionId) => `${base()}/p/${previewToken(versionId)}`,
    granted: (grant) => grantedUrls(base, `a/${grant}`, previewToken),
    previewed: (token) => grantedUrls(base, `p/${token}`, previewToken),
    onDaemon: () => urlsFor(publicUrl, undefined, previewToken),
    page: (versionId, position, size) =>
      `${size === 'max' ? pages(versionId) : images(versionId)}${position}/${size}.jpg`,
    pages,
    images,
    imageOrigin: blobBase ? new URL(blobBase).origin : null,
    original: (versionId) => `${base()}/files/originals/${versionId}`,
  };
};

const noPreviews = (): string => {
  throw new Error('preview URLs need the installation secret: give urlsFor its previewToken');
};

/** A reader's addresses under `below` (`a/<grant>`, `p/<token>`): files on the daemon only. */
const grantedUrls = (
  base: () => string,
  below: string,
  previewToken: (versionId: string) => string,
): Urls => {
  const root = () => `${base()}/${below}`;
  const pages = (versionId: string) => `${root()}/pages/${versionId}/`;
  return {
    reader: (flipbookId) => `${base()}/f/${flipbookId}`,
    shareLink: (token) => `${base()}/s/${token}`,
    preview: (versionId) => `${base()}/p/${previewToken(versionId)}`,
    page: (versionId, position, size) => `${pages(versionId)}${position}/${size}.jpg`,
    pages,
    images: pages,
    imageOrigin: null,
    original: (versionId) => `${root()}/originals/${versionId}`,
    granted: (other) => grantedUrls(base, `a/${other}`, previewToken),
    previewed: (token) => grantedUrls(base, `p/${token}`, previewToken),
    onDaemon: () => grantedUrls(base, below, previewToken),
  };
};
