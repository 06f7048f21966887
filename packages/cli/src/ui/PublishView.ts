// The live view of an upload and its processing, for terminals (drawn on stderr). Written with
// React.createElement because Node's type stripping runs .ts but not .tsx.
import { Box, Text } from 'ink';
import { createElement as h } from 'react';
import { pagesWord } from '../client/pagesWord.ts';

export type ViewState = {
  file: string;
  sent: number;
  total: number;
  startedAt: number;
  status?: string;
  pages?: number;
  /** pages ready so far, while processing */
  pagesDone?: number;
  /** pages/s and time left, in words (client/processingPace.ts) */
  pace?: string;
  note?: string;
};

const MB = 1024 * 1024;
const WIDTH = 30;

const bar = (fraction: number) => {
  const filled = Math.round(Math.min(1, Math.max(0, fraction)) * WIDTH);
  return `[${'█'.repeat(filled)}${'░'.repeat(WIDTH - filled)}]`;
};

export const PublishView = ({ state, now = Date.now() }: { state: ViewState; now?: number }) => {
  const fraction = state.total > 0 ? Math.min(1, state.sent / state.total) : 0;
  const seconds = Math.max(0.001, (now - state.startedAt) / 1000);
  const rate = state.sent / seconds;
  const left = rate > 0 ? (state.total - state.sent) / rate : 0;
  const uploading = !state.status;
  return h(
    Box,
    { flexDirection: 'column' },
    h(
      Text,
      null,
      uploading ? 'Uploading ' : 'Uploaded ',
      h(Text, { bold: true }, state.file),
      ` ${bar(fraction)} ${Math.floor(fraction * 100)}%`,
      `  ${(state.sent / MB).toFixed(1)}/${(state.total / MB).toFixed(1)} MB`,
      uploading ? `  ${(rate / MB).toFixed(1)} MB/s  ${Math.ceil(left)} s left` : '',
    ),
    state.status
      ? h(
          Text,
          {
            color: state.status === 'error' ? 'red' : state.status === 'done' ? 'green' : 'yellow',
          },
          state.status === 'processing' && state.pages
            ? `Processing ${bar((state.pagesDone ?? 0) / state.pages)} ${state.pagesDone ?? 0} of ${state.pages} pages`
            : `Processing: ${state.status}${state.pages ? ` (${pagesWord(state.pages)})` : ''}`,
        )
      : null,
    // the pace on a line of its own: a narrow terminal must not wrap the bar
    state.status === 'processing' && state.pace ? h(Text, { dimColor: true }, state.pace) : null,
    state.note ? h(Text, { dimColor: true }, state.note) : null,
  );
};
