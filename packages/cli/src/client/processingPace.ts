// How fast a version is being processed, from the status answers seen so far (pages_done over
// time): pages a second over the last stretch, and the time left at that pace. Pure, for the
// terminal's progress bar and the plain lines of a pipeline.

export type Sample = { at: number; done: number };

/** Only the last stretch counts: a render's pace changes (the first pages go first, alone). */
const WINDOW_MS = 15_000;
/** A pace over less than this is noise. */
const MIN_SECONDS = 3;

export const processingPace = (samples: Sample[], total: number) => {
  const last = samples.at(-1);
  if (!last) return { rate: null, leftSeconds: null };
  const first = samples.find((s) => s.at >= last.at - WINDOW_MS) ?? last;
  const seconds = (last.at - first.at) / 1000;
  const pages = last.done - first.done;
  // Too little seen to say (the first answers come while page 1 renders alone): no guess yet.
  if (seconds < MIN_SECONDS || pages <= 0) return { rate: null, leftSeconds: null };
  const rate = pages / seconds;
  return { rate, leftSeconds: total > last.done ? Math.ceil((total - last.done) / rate) : 0 };
};

/** "14.2 pages/s, about 17 s left", or '' while the pace is not known. */
export const paceWords = (total: number, samples: Sample[]) => {
  const { rate, leftSeconds } = processingPace(samples, total);
  return [
    rate === null ? null : `${rate.toFixed(1)} pages/s`,
    leftSeconds === null ? null : `about ${formatSeconds(leftSeconds)} left`,
  ]
    .filter(Boolean)
    .join(', ');
};

/** "120 of 352 pages, 14.2 pages/s, about 17 s left" (what is known of it). */
export const describePace = (done: number, total: number, samples: Sample[]) => {
  if (total <= 0) return '';
  const pace = paceWords(total, samples);
  return `${done} of ${total} pages${pace ? `, ${pace}` : ''}`;
};

const formatSeconds = (seconds: number) =>
  seconds < 90 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
