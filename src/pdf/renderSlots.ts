// Render slots: how many renderer processes run at once in this process (daemon or worker),
// shared by every document in flight. One document alone gets every slot; several share them.
//
// Why one scheduler for the process and not a share per job: a fixed share (cores / lanes) left
// one core idle whenever a single document was rendering, which is most of the time.
//
// The rules, in order:
// - Priority: a page-1 rendition ('first') before a page a reader asked for ('demand') before the
//   rest of a document ('normal') before a deep-zoom tile ('tile': its reader has a softer image
//   meanwhile, src/app/pageTiles.ts) before background work ('fill'). 'first' and 'demand' are
//   one page each: they may start `burst` processes beyond the slots rather than wait.
// - Fairness: among waiters of one priority, the document holding the fewest slots goes first,
//   then the one that has had them for the least time (a new short document before a long one).
//   A holder may keep its slot for its next task (no turn lost between a document's ranges).
// - Preemption: a holder that can stop early (a range of pages, cut after the page it is on)
//   gives its slot back when a waiter of a higher priority waits, when its document holds two or
//   more slots above the waiter's, or, after `sliceMs`, one above: so three books on two slots
//   take turns, and a 2,000-page book cannot hold up a 4-page one.
//
// Pure scheduling: no processes here. Time and timers are injected for the tests.

import { availableParallelism } from 'node:os';

export type Priority = 'first' | 'demand' | 'normal' | 'tile' | 'fill';

const RANK: Record<Priority, number> = { first: 0, demand: 1, normal: 2, tile: 3, fill: 4 };

export type Slot = {
  /** gives the slot back (once; later calls do nothing) */
  release: () => void;
  /** how this holder can give its slot back early (null: it cannot now); called at most once */
  yieldWith: (stop: (() => void) | null) => void;
  /** whether the slot has been asked back: its holder should not start more work on it */
  readonly wanted: boolean;
};

/** One document's (or one request's) access to the slots: the unit of fairness. */
export type JobSlots = {
  readonly slots: RenderSlots;
  acquire: (priority: Priority, signal?: AbortSignal) => Promise<Slot>;
};

export type SlotsOptions = {
  capacity: number;
  burst?: number;
  sliceMs?: number;
  now?: () => number;
  setTimer?: (run: () => void, ms: number) => () => void;
};

type Job = {
  held: number;
  /** slot time of the holds it has ended */
  usedMs: number;
  holders: Set<Holder>;
};

type Waiter = {
  job: Job;
  priority: Priority;
  seq: number;
  grant: (slot: Slot) => void;
};

type Holder = {
  job: Job;
  priority: Priority;
  since: number;
  stop: (() => void) | null;
  asked: boolean;
};

export class RenderSlots {
  readonly capacity: number;
  readonly burst: number;
  private readonly sliceMs: number;
  private readonly now: () => number;
  private readonly setTimer: (run: () => void, ms: number) => () => void;
  private inUse = 0;
  private seq = 0;
  private readonly waiters: Waiter[] = [];
  private readonly holders = new Set<Holder>();
  private cancelTimer: (() => void) | null = null;

  constructor(options: SlotsOptions) {
    this.capacity = Math.max(1, Math.floor(options.capacity));
    this.burst = Math.max(0, Math.floor(options.burst ?? 1));
    this.sliceMs = options.sliceMs ?? 2000;
    this.now = options.now ?? (() => performance.now());
    this.setTimer =
      options.setTimer ??
      ((run, ms) => {
        const timer = setTimeout(run, ms);
        timer.unref();
        return () => clearTimeout(timer);
      });
  }

  /** processes running now (burst included) */
  get running() {
    return this.inUse;
  }

  /** requests waiting for a slot */
  get waiting() {
    return this.waiters.length;
  }

  job(): JobSlots {
    const job: Job = { held: 0, usedMs: 0, holders: new Set() };
    return { slots: this, acquire: (priority, signal) => this.acquire(job, priority, signal) };
  }

  private acquire(job: Job, priority: Priority, signal?: AbortSignal): Promise<Slot> {
    signal?.throwIfAborted();
    return new Promise<Slot>((resolve, reject) => {
      const onAbort = () => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        reject(signal?.reason);
        this.pump();
      };
      const waiter: Waiter = {
        job,
        priority,
        seq: this.seq++,
        grant: (slot) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(slot);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
      this.pump();
    });
  }

  /** the waiter to serve next: highest priority, then the document holding least, then oldest */
  private next(): Waiter | undefined {
    let best: Waiter | undefined;
    const now = this.now();
    for (const w of this.waiters) {
      if (!best || before(w, best, now)) best = w;
    }
    return best;
  }

  private limitFor(priority: Priority) {
    return RANK[priority] <= RANK.demand ? this.capacity + this.burst : this.capacity;
  }

  private pump() {
    for (;;) {
      const waiter = this.next();
      if (!waiter || this.inUse >= this.limitFor(waiter.priority)) break;
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      this.grant(waiter);
    }
    this.preempt();
  }

  private grant(waiter: Waiter) {
    const holder: Holder = {
      job: waiter.job,
      priority: waiter.priority,
      since: this.now(),
      stop: null,
      asked: false,
    };
    this.inUse++;
    waiter.job.held++;
    waiter.job.holders.add(holder);
    this.holders.add(holder);
    let released = false;
    waiter.grant({
      release: () => {
        if (released) return;
        released = true;
        this.inUse--;
        holder.job.held--;
        holder.job.usedMs += this.now() - holder.since;
        holder.job.holders.delete(holder);
        this.holders.delete(holder);
        this.pump();
      },
      yieldWith: (stop) => {
        if (released) return;
        holder.stop = stop;
        if (stop) this.preempt();
      },
      get wanted() {
        return holder.asked;
      },
    });
  }

  /** Asks a holder to give its slot back if a waiter's turn has come, or sets a timer for when it will. */
  private preempt() {
    this.cancelTimer?.();
    this.cancelTimer = null;
    const waiter = this.next();
    if (!waiter) return;
    let asked = 0;
    for (const h of this.holders) if (h.asked) asked++;
    if (asked >= this.waiters.length) return; // enough slots are already on their way back
    const now = this.now();
    let victim: Holder | undefined;
    let soonest = Number.POSITIVE_INFINITY;
    for (const h of this.holders) {
      if (!h.stop || h.asked || h.job === waiter.job) continue;
      const at = turnAt(h, waiter, this.sliceMs);
      if (at <= now) {
        if (!victim || worseOff(h, victim)) victim = h;
      } else soonest = Math.min(soonest, at);
    }
    if (victim) {
      victim.asked = true;
      const stop = victim.stop;
      victim.stop = null;
      stop?.();
      return;
    }
    if (Number.isFinite(soonest)) {
      this.cancelTimer = this.setTimer(
        () => {
          this.cancelTimer = null;
          this.preempt();
        },
        Math.max(1, soonest - now),
      );
    }
  }
}

/** slot time a document has had, its holds under way included */
const used = (job: Job, now: number) => {
  let ms = job.usedMs;
  for (const h of job.holders) ms += now - h.since;
  return ms;
};

const before = (a: Waiter, b: Waiter, now: number) => {
  if (RANK[a.priority] !== RANK[b.priority]) return RANK[a.priority] < RANK[b.priority];
  if (a.job.held !== b.job.held) return a.job.held < b.job.held;
  if (a.job !== b.job) {
    const [x, y] = [used(a.job, now), used(b.job, now)];
    if (x !== y) return x < y;
  }
  return a.seq < b.seq;
};

/** When holder `h` should give way to `w`: now, after its slice, or never (Infinity). */
const turnAt = (h: Holder, w: Waiter, sliceMs: number) => {
  if (RANK[h.priority] > RANK[w.priority]) return Number.NEGATIVE_INFINITY;
  if (RANK[h.priority] < RANK[w.priority]) return Number.POSITIVE_INFINITY;
  if (h.job.held >= w.job.held + 2) return Number.NEGATIVE_INFINITY;
  if (h.job.held >= w.job.held + 1) return h.since + sliceMs;
  return Number.POSITIVE_INFINITY;
};

/** the better holder to stop: lower priority, then its document holding more, then held longer */
const worseOff = (a: Holder, b: Holder) =>
  RANK[a.priority] !== RANK[b.priority]
    ? RANK[a.priority] > RANK[b.priority]
    : a.job.held !== b.job.held
      ? a.job.held > b.job.held
      : a.since < b.since;

let shared: RenderSlots | null = null;

/** This process's slots when nobody chose a number: one per core. */
export const machineSlots = () => {
  shared ??= new RenderSlots({ capacity: availableParallelism() });
  return shared;
};
