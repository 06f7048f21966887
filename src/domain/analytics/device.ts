// A reader's kind of device, from what the browser says of itself: phone, tablet or desktop, the
// only detail kept (docs/privacy.md, issue 30). A few ordered rules rather than a user-agent
// parser: three classes need no device database (ua-parser-js 2 is AGPL besides).
export const DEVICES = ['phone', 'tablet', 'desktop'] as const;
export type Device = (typeof DEVICES)[number];

/**
 * `mobileHint`: the `Sec-CH-UA-Mobile` header (`?1` on a Chromium phone); `touch`: the reader
 * said the screen takes several touches (iPadOS presents itself as a Mac).
 */
export const deviceClass = (userAgent: string, mobileHint?: string, touch = false): Device => {
  if (mobileHint === '?1') return 'phone';
  if (/iPad|Tablet|Kindle|Silk|PlayBook|Nexus (7|9|10)\b/i.test(userAgent)) return 'tablet';
  // Android without "Mobile" is a tablet (Google's own rule for its browser).
  if (/Android/i.test(userAgent) && !/Mobi/i.test(userAgent)) return 'tablet';
  if (/Mobi|iPhone|iPod|Windows Phone|Opera Mini|BlackBerry/i.test(userAgent)) return 'phone';
  if (/Macintosh/i.test(userAgent) && touch) return 'tablet';
  return 'desktop';
};
