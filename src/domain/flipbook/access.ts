// Who may read a flipbook, and which sites may frame its reader (docs/access.md):
// - `public`: anyone with its link (the default, and every flipbook from before visibility);
// - `workspace`: the workspace's members, signed in to the dashboard;
// - `links`: only through its share links (./shareLinks.ts).
// Embeds: an empty list lets any site frame a public book's reader and none frame a non-public
// one; a list names the only sites (origins) that may.
import { InvalidInput } from '../errors.ts';

export const VISIBILITIES = ['public', 'workspace', 'links'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

export const MAX_EMBED_ORIGINS = 20;
const MAX_ORIGIN = 253 + 'https://'.length + ':65535'.length;

export const visibility = (raw: unknown): Visibility => {
  if (typeof raw === 'string' && (VISIBILITIES as readonly string[]).includes(raw)) {
    return raw as Visibility;
  }
  throw new InvalidInput(`Invalid visibility: one of ${VISIBILITIES.join(', ')}`);
};

/**
 * One site allowed to frame the reader, as CSP's frame-ancestors names it: an https (or http)
 * origin, scheme and host (and a port), nothing else. A leading `*.` allows every subdomain.
 * Anything a header could be split or widened with (spaces, semicolons, commas, quotes, a path) is
 * refused rather than cleaned.
 */
export const embedOrigin = (raw: unknown): string => {
  if (typeof raw !== 'string' || raw.trim() === '') {
    throw new InvalidInput('Invalid embed origin: give a site as https://example.com');
  }
  const value = raw.trim();
  const shown = JSON.stringify(value.slice(0, 100));
  if (value.length > MAX_ORIGIN) {
    throw new InvalidInput(`Invalid embed origin ${shown}: at most ${MAX_ORIGIN} characters`);
  }
  const match = /^(https?):\/\/(\*\.)?([a-z0-9.-]+)(:\d{1,5})?\/?$/i.exec(value);
  const host = match?.[3]?.toLowerCase() ?? '';
  const labels = host.split('.');
  const port = match?.[4] ? Number(match[4].slice(1)) : null;
  if (
    !match ||
    labels.some((l) => l === '' || l.length > 63 || l.startsWith('-') || l.endsWith('-')) ||
    // a wildcard names one site's subdomains, never a whole top-level domain (*.com)
    (match[2] && labels.length < 2) ||
    (port !== null && (port < 1 || port > 65535))
  ) {
    throw new InvalidInput(
      `Invalid embed origin ${shown}: give a site as https://example.com (a scheme and a host, optionally a port; *.example.com for its subdomains)`,
    );
  }
  return `${match[1]?.toLowerCase()}://${match[2] ?? ''}${host}${port === null ? '' : `:${port}`}`;
};

/** A list of sites, each checked, without repeats, in the order given. */
export const embedOrigins = (raw: unknown): string[] => {
  if (!Array.isArray(raw)) {
    throw new InvalidInput(
      'Invalid embed_origins: give a list of sites, e.g. ["https://example.com"]',
    );
  }
  const origins = [...new Set(raw.map(embedOrigin))];
  if (origins.length > MAX_EMBED_ORIGINS) {
    throw new InvalidInput(`Invalid embed_origins: at most ${MAX_EMBED_ORIGINS} sites`);
  }
  return origins;
};

/** The reader's CSP frame-ancestors for a book: who may frame it. */
export const frameAncestors = (book: { visibility: Visibility; embedOrigins: string[] }) => {
  if (book.embedOrigins.length > 0) return `frame-ancestors 'self' ${book.embedOrigins.join(' ')}`;
  return book.visibility === 'public' ? 'frame-ancestors *' : "frame-ancestors 'self'";
};
