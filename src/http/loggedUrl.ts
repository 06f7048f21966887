// A request's URL as it may be written to a log: the secret in a share link (/s/<token>) or a
// reading grant (/a/<grant>) is left out, so logs never hold what opens a private book.
export const loggedUrl = (url: string | undefined) =>
  (url ?? '').replace(/^\/(s|a)\/[^/?#]*/, '/$1/[redacted]');
