// Forms and scripts a browser sends (the dashboard's, a share link's in the reader) change
// state only when this service's own pages sent them: another site cannot make a visitor's browser
// sign in, post or identify itself here (login CSRF).
import type { IncomingMessage } from 'node:http';
import { Forbidden } from '../domain/errors.ts';

/**
 * Refuses a state-changing request another site made the browser send: its Origin (or, when the
 * browser sends no Origin, its Sec-Fetch-Site) must be this service's own.
 */
export const checkSameOrigin = (req: IncomingMessage, publicOrigin: string) => {
  const origin = req.headers.origin;
  if (typeof origin === 'string' && origin !== 'null') {
    if (origin !== publicOrigin && origin !== hostOrigin(req)) {
      throw new Forbidden('This form was sent from another site');
    }
    return;
  }
  // No Origin, or `null`: a page sent with `Referrer-Policy: no-referrer` (a share link's pages)
  // posts its own forms with `Origin: null`, and sandboxed frames do too; Sec-Fetch-Site tells
  // them apart. A browser that sends neither is too old to tell anything: let through, as
  // the dashboard's CSRF token still guards its forms.
  const site = req.headers['sec-fetch-site'];
  if (typeof site === 'string' && site !== 'same-origin' && site !== 'none') {
    throw new Forbidden('This form was sent from another site');
  }
};

/** The origin the browser used (behind no proxy, it may differ from --public-url's host). */
const hostOrigin = (req: IncomingMessage) => {
  const host = req.headers.host;
  const secure = (req.socket as { encrypted?: boolean }).encrypted === true;
  return host ? `${secure ? 'https' : 'http'}://${host}` : '';
};
