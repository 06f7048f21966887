// A request's URL as it may be written to a log: the secrets some URLs hold are left out, so logs
// never hold what opens a private book or signs someone in: a share link's token (/s/<token>), a
// reading grant (/a/<grant>), an invitation's token (/invite/<token>), and the query of single
// sign-on's way back (its code and state).
export const loggedUrl = (url: string | undefined) =>
  (url ?? '')
    .replace(/^\/(s|a|invite)\/[^/?#]*/, '/$1/[redacted]')
    .replace(/^(\/login\/sso\/callback\/?)\?.*/, '$1?[redacted]');
