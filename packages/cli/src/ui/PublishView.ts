// The live view of an upload and its processing, for terminals (drawn on stderr). Written with
// React.createElement because Node's type stripping runs .ts but not .tsx.
import { Box, Text } from 'ink';
import { createElement as h } from 'react';

export type ViewState = {
  file: string;
  sent: number;
  total: number;
  startedAt: number;
  status?: string;
  pages?: number;
  note?: string;
};

const MB = 1024 * 1024;
const WIDTH = 30;

export const PublishView = ({ state, now = Date.now() }: { state: ViewState; now?: number }) => {
  const fraction = state.total > 0 ? Math.min(1, state.sent / state.total) : 0;
  const filled = Math.round(fraction * WIDTH);
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
      ` [${'█'.repeat(filled)}${'░'.repeat(WIDTH - filled)}] ${Math.floor(fraction * 100)}%`,
      `  ${(state.sent / MB).toFixed(1)}/${(state.total / MB).toFixed(1)} MB`,
      uploading ? `  ${(rate / MB).toFixed(1)} MB/s  ${Math.ceil(left)} s left` : '',
    ),
    state.status
      ? h(
          Text,
          {
            color: state.status === 'error' ? 'red' : state.status === 'done' ? 'green' : 'yellow',
          },
          `Processing: ${state.status}`,
          state.pages ? ` (${state.pages} pages)` : '',
        )
      : null,
    state.note ? h(Text, { dimColor: true }, state.note) : null,
  );
};
