// A daemon or worker starting beside its database and bucket (compose, a machine booting, a
// loaded one) may find them not there yet, in one of three ways: the name does not resolve yet
// (compose registers a container's name only once it runs), nothing listens yet (refused), or
// nothing answers (a host still booting, a firewall dropping packets). Each is waited for alike,
// for the same time, with one line a try saying what is awaited and why, and then the process
// ends with a sentence, not a stack. What waiting cannot mend (a wrong password, a bucket the key
// may not read) ends it at once.

/** One failed try that waiting may mend, as the line each try prints and its parts. */
export type Waiting = {
  /** `waiting for the database at postgres:5432: the name does not resolve (try 3, 24 s left)` */
  line: string;
  /** what is awaited: `the database at postgres:5432` */
  what: string;
  /** why this try failed, in words */
  reason: string;
  /** tries so far, this one included */
  tries: number;
  leftMs: number;
};

/** What is awaited did not come within the patience, or refused in a way waiting cannot mend. */
export class NotAvailable extends Error {
  override name = 'NotAvailable';
  override readonly cause: unknown;
  constructor(message: string, cause: unknown) {
    super(message);
    this.cause = cause;
  }
}

/** The pause after try n (1, 2, ...): soon at first (a server a moment late), then every 3 s. */
const pauseAfter = (tries: number) => [500, 1000, 2000][tries - 1] ?? 3000;

const seconds = (ms: number) => Math.max(0, Math.round(ms / 1000));
/** Time left, rounded up: "1 s left" until none is. */
export const secondsLeft = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

export const waitAtStart = async <T>(options: {
  /** what is awaited, for a person: `the database at postgres:5432` */
  what: string;
  attempt: () => Promise<T>;
  /**
   * why an attempt failed, in words, when waiting may mend it; null when it cannot (the attempt's
   * own error is then turned into a NotAvailable at once)
   */
  worthWaiting: (error: unknown) => string | null;
  /** the failure waiting cannot mend, in words (`password authentication failed for ...`) */
  describe: (error: unknown) => string;
  /** how long to keep trying; 0: one try */
  patienceMs: number;
  onWaiting?: (waiting: Waiting) => void;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}): Promise<T> => {
  const now = options.now ?? (() => performance.now());
  const sleep = options.sleep ?? ((ms) => new Promise<void>((r) => setTimeout(r, ms)));
  const started = now();
  const deadline = started + options.patienceMs;
  for (let tries = 1; ; tries++) {
    try {
      return await options.attempt();
    } catch (error) {
      const reason = options.worthWaiting(error);
      if (reason === null) {
        throw new NotAvailable(`${options.what} cannot be used: ${options.describe(error)}`, error);
      }
      const leftMs = deadline - now();
      if (leftMs <= 0) {
        const spent =
          options.patienceMs > 0
            ? ` (${tries} ${tries === 1 ? 'try' : 'tries'} in ${seconds(now() - started)} s)`
            : '';
        throw new NotAvailable(`${options.what} is unavailable: ${reason}${spent}`, error);
      }
      options.onWaiting?.({
        line: `waiting for ${options.what}: ${reason} (try ${tries}, ${secondsLeft(leftMs)} s left)`,
        what: options.what,
        reason,
        tries,
        leftMs,
      });
      await sleep(Math.min(pauseAfter(tries), leftMs));
    }
  }
};

/** The words for the network failures a database and a bucket share (a `code` of node's). */
export const networkReason = (code: string | undefined): string | null => {
  switch (code) {
    case 'ENOTFOUND':
      return 'the name does not resolve';
    case 'EAI_AGAIN':
      return 'the name could not be looked up (DNS)';
    case 'ECONNREFUSED':
      return 'the connection was refused (nothing listens on that port)';
    case 'EHOSTUNREACH':
    case 'EHOSTDOWN':
    case 'ENETUNREACH':
    case 'ENETDOWN':
      return 'the host cannot be reached';
    case 'ECONNRESET':
    case 'ECONNABORTED':
    case 'EPIPE':
      return 'the connection was closed';
    default:
      return null;
  }
};

/** `host:port` of a URL, for a person; the URL's password never appears. */
export const hostOf = (url: string, defaultPort: string): string | null => {
  try {
    const parsed = new URL(url);
    if (!parsed.hostname) return null;
    return `${parsed.hostname}:${parsed.port || defaultPort}`;
  } catch {
    return null;
  }
};
