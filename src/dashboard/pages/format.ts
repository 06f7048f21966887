// Small words the flipbook pages share: sizes, times, a version's status.
import type { VersionLine } from '../../app/flipbookOverview.ts';
import { html } from '../../http/html.ts';

/** 1.2 MB, 840 KB, 512 bytes. */
export const bytes = (n: number) => {
  if (n < 1024) return `${n} ${n === 1 ? 'byte' : 'bytes'}`;
  if (n < 1024 * 1024) return `${Math.round(n / 1024)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
};

export const pages = (n: number) => `${n} ${n === 1 ? 'page' : 'pages'}`;

/**
 * A time people read at a glance, in UTC (the server does not know the reader's zone); `short`
 * leaves out the seconds and the zone (a table whose heading says UTC).
 */
export const at = (iso: string, short = false) => {
  const text = iso.replace('T', ' ').replace(/(:\d\d)(\.\d+)?Z$/, '$1');
  return html`<time datetime="${iso}">${short ? text.slice(0, 16) : `${text} UTC`}</time>`;
};

export const statusWords = (v: Pick<VersionLine, 'status' | 'pageCount' | 'pagesReady'>) => {
  switch (v.status) {
    case 'pending':
      return 'Waiting to be processed';
    case 'processing':
      return v.pageCount > 0
        ? `Processing: ${v.pagesReady} of ${v.pageCount} pages`
        : 'Processing…';
    case 'done':
      return 'Processed';
    case 'error':
      return 'Could not be processed';
  }
};

/** Where a flipbook stands for readers, as a badge: archived, failed (no version could be
 * processed), published (it has an active version), or not yet. */
export const availabilityBadge = (book: { archived: boolean; failed: boolean; active: boolean }) =>
  book.archived
    ? html`<span class="badge archived">Archived</span>`
    : book.failed
      ? html`<span class="badge failed">Failed</span>`
      : book.active
        ? html`<span class="badge published">Published</span>`
        : html`<span class="badge waiting">Not yet published</span>`;

/**
 * Who may read it, as a badge beside its availability: none for public (the default), so a
 * private flipbook's reader link is never taken for one that opens for anyone.
 */
export const visibilityBadge = (visibility: 'public' | 'workspace' | 'links') =>
  visibility === 'workspace'
    ? html`<span class="badge private">Members only</span>`
    : visibility === 'links'
      ? html`<span class="badge private">Share links only</span>`
      : '';
