// An outbox sender's heartbeat (mail, webhooks): `tick` now, then again `everyMs` after each one
// ends, so two ticks never overlap however slow the database is; a tick that fails (the database
// away) is reported and the next one comes all the same. stop() ends it at once.
export const pollLoop = (
  tick: () => Promise<void>,
  everyMs: number,
  onError: (error: unknown) => void,
) => {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const loop = () => {
    if (stopped) return;
    tick()
      .catch(onError)
      .finally(() => {
        if (!stopped) timer = setTimeout(loop, everyMs);
      });
  };
  loop();
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
};
