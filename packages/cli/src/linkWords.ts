// A share link and its readers in the CLI's words (issue 44; docs/cli.md): what a link asks of
// its readers, as `share create` and `share edit` say it and `share list` shows it, and the table
// of `share readers` and what `reader forget` says. Pure: the commands print what these return.
import type { LinkReader } from '../../../src/contract/readers.ts';
import type { ShareLink } from '../../../src/contract/shareLinks.ts';
import { duration, safe } from './output.ts';

type Rules = Pick<ShareLink, 'identify' | 'terms' | 'allow' | 'watermark' | 'notify'> & {
  /** absent from a server before it: the list alone says */
  allow_limited?: boolean;
};

/** Limited to an allow list every address of which was erased: no one may read. */
const closed = (link: Rules) => link.allow_limited === true && link.allow.length === 0;

/** The allow list in a few words: its entries when they are few, else how many. */
const allowed = (allow: readonly string[]) =>
  allow.length <= 3 ? allow.map(safe).join(', ') : `${allow.length} addresses or domains`;

/** What the link asks of its readers, a sentence; '' when it asks nothing (anonymous readers). */
export const linkAsks = (link: Rules) => {
  const parts = [
    ...(link.identify === 'email' ? ['give their address'] : []),
    ...(link.identify === 'verified_email' ? ['give their address and the code mailed to it'] : []),
    ...(link.terms !== null ? ['accept its terms'] : []),
  ];
  const more = [
    ...(link.allow.length > 0 ? [`only ${allowed(link.allow)} may read`] : []),
    ...(closed(link) ? ['no one may read (every address it allowed was erased)'] : []),
    ...(link.watermark ? ["every page shows the reader's address"] : []),
    ...(link.notify ? ['its creator is mailed when they read'] : []),
  ];
  if (parts.length === 0 && more.length === 0) return '';
  const first = parts.length > 0 ? `Readers ${parts.join(' and ')} first` : '';
  return `${[first, ...more].filter(Boolean).join('; ')}.`;
};

/** The same for a column of `share list`: `email, terms, allow 3, watermark, notify`, or `-`. */
export const linkAsksColumn = (link: Rules) =>
  [
    ...(link.identify !== 'none' ? [link.identify] : []),
    ...(link.terms !== null ? ['terms'] : []),
    ...(link.allow.length > 0 ? [`allow ${link.allow.length}`] : []),
    ...(closed(link) ? ['allow 0'] : []),
    ...(link.watermark ? ['watermark'] : []),
    ...(link.notify ? ['notify'] : []),
  ].join(', ') || '-';

/** What `share create` and `share edit` print of a link (create adds its URL). */
export const linkSummary = (link: ShareLink) => {
  const asks = linkAsks(link);
  return (
    `Share link ${link.id} for ${safe(link.label)}` +
    `${link.expires_at ? `, until ${link.expires_at}` : ''}` +
    `${link.has_password ? ', with a password' : ''}` +
    `${link.allow_download ? '' : ', no download'}.\n` +
    `${asks ? `${asks}\n` : ''}`
  );
};

export const READER_COLUMNS = [
  'email',
  'verified',
  'opens',
  'read',
  'pages seen',
  'last page',
  'completed',
  'downloads',
  'last opened',
];

/** `share readers`' table: one row a reader, as the API lists them (most recent first). */
export const readerRows = (readers: readonly LinkReader[]) =>
  readers.map((r) => ({
    email: r.email,
    verified: r.verified ? 'yes' : 'no',
    opens: r.opens,
    read: duration(r.read_seconds),
    'pages seen': `${r.pages_seen}/${r.page_count ?? '-'}`,
    'last page': r.last_page,
    completed: r.completed ? 'yes' : 'no',
    downloads: r.downloads,
    'last opened': r.last_opened_at ?? 'never',
  }));

/** What `share readers` says of a link nobody identified at. */
export const NO_READERS =
  'No reader has given their address at this link yet (a link asks for it when made with --identify email or verified_email).\n';

/** What `reader forget` says it did: how many reader records lost the address. */
export const erasedWords = (erased: number) =>
  erased === 0
    ? 'Erased 0 reader records: no link of this workspace knew that address (the erasure is recorded all the same).\n'
    : `Erased ${erased} reader record${erased === 1 ? '' : 's'}: the address is gone from this workspace's links; their reading figures stay, without a name.\n`;
