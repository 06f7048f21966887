// Search: every hit counted, listed with a snippet and its page label, and lit on the page image
// (from the page's word boxes, fetched for the pages on screen). Enter in the field, or "Next",
// goes to the next hit after the pages shown. Fetched when its panel first opens or a query is
// first asked (main.ts, which holds the form's submit until then): a chunk of its own.

import type { Reader } from './panelTypes.ts';
import { say } from './say.ts';
import { coveredWords, findHits, type Hit } from './searchText.ts';
import { drawHits } from './stage.ts';

/** An element of the search panel, which the page always renders (src/reader/readerPage.ts). */
const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

export type Search = { run: () => Promise<void>; highlight: () => void };

export const createSearch = ({ reader }: { reader: Reader }): Search => {
  const input = byId<HTMLInputElement>('search-input');
  const summary = byId('search-summary');
  const results = byId('search-results');
  let query = '';
  let hits: Hit[] = [];
  let asked = 0;

  const run = async () => {
    const wanted = input.value.trim();
    if (!wanted) return;
    const ticket = ++asked;
    summary.textContent = say('searching');
    const texts = await reader.book.texts();
    if (ticket !== asked) return;
    const found = findHits(texts, wanted);
    const isNew = wanted !== query;
    query = wanted;
    hits = found.hits;
    results.replaceChildren();
    if (found.count === 0) {
      summary.textContent = say(reader.book.data.processing ? 'noHitsYet' : 'noHits', {
        query: wanted,
      });
      highlight();
      return;
    }
    summary.textContent = say(found.hits.length < found.count ? 'hitsListed' : 'hits', {
      count: found.count,
      pages: found.pages,
      listed: found.hits.length,
    });
    for (const hit of hits) {
      const li = document.createElement('li');
      const a = document.createElement('a');
      a.href = `#page=${hit.n}`;
      a.dataset.page = String(hit.n);
      const label = document.createElement('span');
      label.className = 'page-label';
      label.textContent = say('page', { label: reader.book.label(hit.n) });
      const snippet = document.createElement('span');
      snippet.className = 'snippet';
      const mark = document.createElement('mark');
      mark.textContent = hit.match;
      snippet.append(hit.before, mark, hit.after);
      a.append(label, snippet);
      li.append(a);
      results.append(li);
    }
    // A new query starts from the pages on screen; asking again goes on to the next hit.
    const shown = reader.shown();
    const next = isNew
      ? hits.find((h) => h.n >= Math.min(...shown))
      : hits.find((h) => h.n > Math.max(...shown));
    const first = next ?? hits[0];
    if (first) reader.jump(first.n);
    highlight();
  };

  /** Lights the query's words on the pages on screen. */
  const highlight = () => {
    for (const figure of document.querySelectorAll<HTMLElement>('#stage figure[data-n]')) {
      const n = Number(figure.dataset.n);
      if (!query || !hits.some((h) => h.n === n)) {
        drawHits(figure, []);
        continue;
      }
      const wanted = query;
      reader.book.words(n).then((words) => {
        if (wanted !== query || !figure.isConnected) return;
        const covered = coveredWords(
          words.map((w) => w.t),
          wanted,
        );
        drawHits(
          figure,
          covered.flatMap((i) => words[i] ?? []),
        );
      });
    }
  };

  input.addEventListener('input', () => {
    if (!input.value.trim()) {
      query = '';
      hits = [];
      results.replaceChildren();
      summary.textContent = '';
      highlight();
    }
  });
  results.addEventListener('click', (e) => {
    if (!(e.target instanceof Element)) return;
    const a = e.target.closest<HTMLElement>('[data-page]');
    if (!a) return;
    e.preventDefault();
    reader.jump(Number(a.dataset.page));
  });

  return { run, highlight };
};
