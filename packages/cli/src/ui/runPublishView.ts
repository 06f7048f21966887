// One ink lifecycle for a publishing command on a terminal: render on stderr, update as progress
// arrives, unmount at the end. The result itself goes to stdout, after the view is gone.
import { render } from 'ink';
import { createElement as h } from 'react';
import type { Progress } from '../services/publish.ts';
import { PublishView, type ViewState } from './PublishView.ts';

export const runPublishView = async <T>(
  file: string,
  total: number,
  work: (progress: Progress) => Promise<T>,
) => {
  let state: ViewState = { file, sent: 0, total, startedAt: Date.now() };
  const view = render(h(PublishView, { state }), { stdout: process.stderr, exitOnCtrlC: false });
  let last = 0;
  const update = (patch: Partial<ViewState>, force = false) => {
    state = { ...state, ...patch };
    if (force || Date.now() - last > 100) {
      last = Date.now();
      view.rerender(h(PublishView, { state }));
    }
  };
  try {
    return await work({
      onUpload: (sent, size) => update({ sent, total: size }, sent === size),
      onStatus: (s) => update({ status: s.status, pages: s.pages, sent: state.total }, true),
      onWait: (note) => update({ note }, true),
    });
  } finally {
    view.rerender(h(PublishView, { state }));
    view.unmount();
  }
};
