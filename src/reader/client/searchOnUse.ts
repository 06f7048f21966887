// The search (./searchPanel.ts), fetched on first use (a chunk of its own,
// src/http/staticAssets.ts): what a reader does not need for the first page does not weigh on
// it. Opening its panel fetches it, so the first query seldom waits.
import type { Beacon } from './beacon.ts';
import { byId } from './dom.ts';
import type { Panels, Reader } from './panelTypes.ts';
import { say } from './say.ts';
import type { Search } from './searchPanel.ts';

export const searchOnUse = ({
  reader,
  panels,
  beacon,
}: {
  reader: Reader;
  panels: Panels;
  beacon: Beacon;
}) => {
  // Null when its module did not come (the network, or the daemon upgraded since the page
  // loaded: a new release serves new chunks only).
  let search: Promise<Search | null> | undefined;
  const loadSearch = () =>
    import('./searchPanel.ts').then(
      (m) => m.createSearch({ reader }),
      () => null,
    );
  panels.onOpen = (name) => {
    if (name === 'search') search ??= loadSearch();
  };
  byId('search-form').addEventListener('submit', (event) => {
    event.preventDefault();
    beacon.record({ k: 'search' });
    search ??= loadSearch();
    search.then((found) => {
      if (found) return found.run();
      search = undefined; // asked again with the next query
      byId('search-summary').textContent = say('notLoaded');
    });
  });
  return {
    /** Lights the hits on the pages shown, once the search is here (none before a query). */
    highlight: () => {
      search?.then((s) => s?.highlight());
    },
  };
};
