// Progress for a log, not a terminal (a CI job, `--json`, `--progress`): a line on stderr when the
// status changes, and while uploading or processing at most one every 5 s, so a ten-minute wait
// shows it is alive without flooding the log. Plain words, or one JSON object a line
// (`--progress json`). The result itself stays on stdout: `--json` parsers read only that.
import { describePace, processingPace, type Sample } from '../client/processingPace.ts';
import type { ProcessingStatus, Progress } from '../services/publish.ts';
import { pagesWord } from '../client/pagesWord.ts';

export const PROGRESS_FORMATS = ['plain', 'json', 'none'] as const;
export type ProgressFormat = (typeof PROGRESS_FORMATS)[number];

/** The least time between two lines of the same kind (a status change is always said). */
export const LINE_EVERY_MS = 5000;

const MB = 1024 * 1024;

export const progressLines = (
  format: ProgressFormat,
  write: (line: string) => void,
  now: () => number = Date.now,
): Progress => {
  if (format === 'none') return {};
  const json = format === 'json';
  const say = (plain: string, data: Record<string, unknown>) =>
    write(json ? JSON.stringify(data) : plain);
  const uploadStarted = now();
  let lastUpload = uploadStarted;
  let lastStatus = '';
  let lastStep: ProcessingStatus['step'];
  let lastLine = 0;
  let lastDone = -1;
  const samples: Sample[] = [];
  return {
    onWait: (message) => say(message, { type: 'wait', message }),
    // Nothing for an upload that takes less than 5 s (most): then a line every 5 s, and its end.
    onUpload: (sent, total) => {
      const at = now();
      if (at - lastUpload < LINE_EVERY_MS && !(sent === total && lastUpload > uploadStarted)) {
        return;
      }
      lastUpload = at;
      say(`upload: ${(sent / MB).toFixed(1)} of ${(total / MB).toFixed(1)} MB`, {
        type: 'upload',
        sent,
        total,
      });
    },
    onStatus: (s) => {
      const at = now();
      const done = s.pages_done ?? 0;
      samples.push({ at, done });
      const changed = s.status !== lastStatus || s.step !== lastStep;
      const moved =
        s.status === 'processing' && done !== lastDone && at - lastLine >= LINE_EVERY_MS;
      lastStatus = s.status;
      lastStep = s.step;
      if (!changed && !moved) return;
      lastLine = at;
      lastDone = done;
      const pace = s.status === 'processing' ? describePace(done, s.pages, samples) : '';
      // An office document or images being made into a PDF: no pages to count yet.
      const converting = s.step === 'converting' ? 'converting to PDF' : '';
      const detail = converting || pace || (s.pages ? pagesWord(s.pages) : '');
      const { rate, leftSeconds } = processingPace(samples, s.pages);
      say(`status: ${s.status}${detail ? ` (${detail})` : ''}`, {
        type: 'status',
        status: s.status,
        pages: s.pages,
        pages_done: done,
        ...(converting ? { step: 'converting' } : {}),
        ...(s.status === 'processing' && rate !== null
          ? { pages_per_second: Math.round(rate * 10) / 10, seconds_left: leftSeconds }
          : {}),
        ...(s.error_reason ? { error_reason: s.error_reason } : {}),
      });
    },
  };
};
