// The worker loops' pause between polls: over after `ms`, at once when the process stops, and
// as soon as `wake` sends the event named (work arrived: a job queued, a version done).

export const pause = (ms: number, signal: AbortSignal, wake?: EventTarget, event = 'job') =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      wake?.removeEventListener(event, done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    wake?.addEventListener(event, done, { once: true });
  });
