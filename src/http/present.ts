// Moved below HTTP: the presenters are src/app/present.ts, the URLs src/app/urls.ts. This
// re-export stays only for src/reader, which still imports Urls from here.
export type { Urls } from '../app/urls.ts';
