// One flipbook's versions table: a row still processing shows its pages as they come (in its
// Pages cell; its status says "Processing"); once it ends, the table is fetched again (its
// buttons and the Active badge change) and said aloud.
import { pollStatus } from './status.ts';

const table = document.querySelector('[data-versions]');
const live = document.querySelector('[data-versions-live]');
for (const row of table?.querySelectorAll<HTMLElement>('tr[data-status-url]') ?? []) {
  const text = row.querySelector('[data-status-text]');
  const pagesCell = row.querySelector('td[data-label="Pages"]');
  pollStatus(row.dataset.statusUrl ?? '', (s) => {
    if (s.status === 'processing' && s.pageCount > 0) {
      if (text) text.textContent = 'Processing';
      if (pagesCell) pagesCell.textContent = `${s.pagesReady} of ${s.pageCount}`;
    }
  })
    .then(async (s) => {
      const page = await fetch(location.pathname, { cache: 'no-store' });
      const fresh = new DOMParser()
        .parseFromString(await page.text(), 'text/html')
        .querySelector('[data-versions]');
      if (fresh) table?.replaceChildren(...fresh.childNodes);
      if (!live) return;
      live.textContent =
        s.status === 'done'
          ? `Version ${s.number} is processed.`
          : `Version ${s.number} could not be processed: ${s.error}`;
    })
    .catch(() => {
      if (text) text.textContent = 'Reload the page to see how processing went.';
    });
}
