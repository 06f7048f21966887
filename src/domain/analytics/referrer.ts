// Where a reader came from, as kept: the referring site's host name and nothing of the path or
// query (they may name a person, a search, a private page). No referrer, one that is not a web
// address, or this service itself (a reader moving inside it) is "direct": null.
const MAX_HOST = 253;

export const referrerHost = (referrer: string | null | undefined, ownHosts: readonly string[]) => {
  if (!referrer || referrer.length > 4096) return null;
  let url: URL;
  try {
    url = new URL(referrer);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  const host = url.hostname
    .toLowerCase()
    .replace(/^www\./, '')
    .replace(/\.$/, '');
  if (!host || host.length > MAX_HOST || host === 'localhost') return null;
  if (ownHosts.some((own) => own.toLowerCase().replace(/^www\./, '') === host)) return null;
  return host;
};
