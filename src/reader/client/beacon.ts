// What the reader tells its service (issue 30, docs/privacy.md): that it opened, which pages were
// on screen and for how long, links followed, searches (not their words), downloads, zooms. Sent
// with navigator.sendBeacon (never in the reader's way), only while the tab is visible and when
// it is hidden or closed; time is counted only while the page is visible. No cookie, no storage:
// the page's token says which book it is (src/app/analytics/readingTokens.ts).

type Event =
  | { k: 'open' | 'search' | 'download' | 'zoom' }
  | { k: 'page'; p: number; s: number; m?: 1; b?: 1 }
  | { k: 'link'; p: number; l: number };

/** Events held back at most this long while the reader reads on (figures within seconds). */
const SEND_EVERY_MS = 5000;
/** A beacon carries at most this many events (the server takes 64). */
const MOST_EVENTS = 60;

export type Beacon = {
  /** the pages on screen now (after a turn, a resize) */
  show: (pages: number[]) => void;
  record: (event: Event) => void;
};

export const createBeacon = (config: { url: string; token: string } | undefined): Beacon => {
  if (!config || typeof navigator.sendBeacon !== 'function') {
    return { show: () => {}, record: () => {} };
  }
  let events: Event[] = [];
  let shown: number[] = [];
  /** when the pages shown started being seen (while visible); null: hidden */
  let since: number | null = document.hidden ? null : performance.now();
  /** pages already counted as seen since they came on screen: later time is "more" */
  let counted = new Set<number>();
  let openSent = false;

  const send = () => {
    while (events.length > 0) {
      const batch = events.slice(0, MOST_EVENTS);
      const body: Record<string, unknown> = { v: 1, t: config.token, e: batch };
      if (!openSent) {
        // the site the reader came from (the browser gives its origin at most) and whether the
        // screen is a touch one (an iPad says it is a Mac)
        if (document.referrer) body.r = document.referrer;
        if (navigator.maxTouchPoints > 1) body.tc = 1;
      }
      // Refused when the browser's queue of beacons is full: kept for the next send (the
      // newest few hundred, should it stay full).
      if (!navigator.sendBeacon(config.url, JSON.stringify(body))) {
        events = events.slice(-10 * MOST_EVENTS);
        return;
      }
      openSent = true;
      events = events.slice(batch.length);
    }
  };

  /** The time the pages shown were seen since `since`, as events; the clock restarts. */
  const closeTime = () => {
    if (since === null) return;
    const seconds = Math.round((performance.now() - since) / 100) / 10;
    since = performance.now();
    for (const [i, p] of shown.entries()) {
      // A page seen less than a second on its first showing was passed by, not read.
      if (!counted.has(p) && seconds < 1) continue;
      events.push({
        k: 'page',
        p,
        s: seconds,
        ...(counted.has(p) ? { m: 1 as const } : {}),
        // the second page of a spread: on screen in the same seconds as the first
        ...(i > 0 ? { b: 1 as const } : {}),
      });
      counted.add(p);
    }
  };

  const record = (event: Event) => {
    events.push(event);
    if (events.length >= MOST_EVENTS) send();
  };

  document.addEventListener('visibilitychange', () => {
    if (document.hidden) {
      closeTime();
      since = null;
      send(); // the last chance: a hidden tab may never come back
    } else {
      since = performance.now();
    }
  });
  // Closed or navigated away while visible (no visibilitychange in some browsers).
  window.addEventListener('pagehide', () => {
    closeTime();
    since = null;
    send();
  });
  // Back from the browser's page cache: the pages on screen are seen again from now.
  window.addEventListener('pageshow', (event) => {
    if (event.persisted && !document.hidden) since = performance.now();
  });
  setInterval(() => {
    if (!document.hidden) send();
  }, SEND_EVERY_MS);

  record({ k: 'open' });
  if (!document.hidden) send();

  return {
    show: (pages) => {
      if (pages.length === shown.length && pages.every((p, i) => p === shown[i])) return;
      closeTime();
      // A page still on screen keeps its view; one that comes back later is a new one.
      counted = new Set(pages.filter((p) => counted.has(p)));
      shown = pages;
    },
    record,
  };
};
