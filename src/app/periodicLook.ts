// A daemon's look at the database now and then (old previews, ended readings): on a timer that
// never keeps the process alive, a failed look handed to `onError` and the next one coming at
// its time all the same, and stop() waiting for the look under way, so that nothing touches the
// store once the daemon has closed it.
export const lookEvery = (
  everyMs: number,
  look: () => Promise<unknown>,
  onError: (error: unknown) => void,
  { atStart = false } = {},
) => {
  let running: Promise<unknown> = Promise.resolve();
  const start = () => {
    running = look().catch(onError);
  };
  if (atStart) start();
  const timer = setInterval(start, everyMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
};
