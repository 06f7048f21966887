// Asking the server again until its answer is final, at the one pace every wait of the client
// uses (a version's processing, a preview's comparison): an async generator, so a view can show
// every answer and a script can simply take the last one.
import { sleep } from './apiClient.ts';
import { CliError, EXIT } from './cliErrors.ts';

export type PollOptions = { timeoutMs: number; signal?: AbortSignal };

export async function* pollUntil<T>(
  ask: () => Promise<T>,
  final: (answer: T) => boolean,
  options: PollOptions,
  /** the timeout's words (exit 4), from the last answer: what it was still doing */
  timedOut: (last: T) => string,
): AsyncGenerator<T> {
  const deadline = Date.now() + options.timeoutMs;
  let delay = 300;
  for (;;) {
    const answer = await ask();
    yield answer;
    if (final(answer)) return;
    if (options.signal?.aborted) throw new CliError(EXIT.interrupted, 'Interrupted');
    if (Date.now() + delay > deadline) throw new CliError(EXIT.timeout, timedOut(answer));
    await sleep(delay, options.signal);
    if (options.signal?.aborted) throw new CliError(EXIT.interrupted, 'Interrupted');
    // Every 2 s at most: a progress bar moves, and a status costs the server a few ms.
    delay = Math.min(2000, Math.round(delay * 1.5));
  }
}
