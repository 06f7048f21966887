// One ink lifecycle for a publishing command on a terminal: render on stderr, update as progress
// arrives, unmount at the end. The result itself goes to stdout, after the view is gone.
import { render } from 'ink';
import { createElement as h } from 'react';
import { paceWords, type Sample } from '../client/processingPace.ts';
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
  const samples: Sample[] = [];
  try {
    return await work({
      onUpload: (sent, size) => update({ sent, total: size }, sent === size),
      onStatus: (s) => {
        samples.push({ at: Date.now(), done: s.pages_done ?? 0 });
        update(
          {
            status: s.status,
            pages: s.pages,
            pagesDone: s.pages_done,
            pace: paceWords(s.pages, samples),
            sent: state.total,
          },
          true,
        );
      },
      onWait: (note) => update({ note }, true),
    });
  } finally {
    view.rerender(h(PublishView, { state }));
    view.unmount();
  }
};
