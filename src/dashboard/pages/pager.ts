// The pager under a paged list (the flipbooks grid, a flipbook's activity): nothing when it all
// fits on one page; else a link back, "Page n of m" and a link on, as plain links (no script).
import { html } from '../../http/html.ts';

export const pager = (
  /** what is paged, for the label read out: "Pages of activity" */
  of: string,
  at: { page: number; totalPages: number },
  link: (page: number) => string,
  words: { prev: string; next: string },
) =>
  at.totalPages > 1
    ? html`<nav class="pager" aria-label="Pages of ${of}">
${at.page > 1 ? html`<a href="${link(at.page - 1)}" rel="prev">${words.prev}</a>` : ''}
<span>Page ${at.page} of ${at.totalPages}</span>
${at.page < at.totalPages ? html`<a href="${link(at.page + 1)}" rel="next">${words.next}</a>` : ''}
</nav>`
    : '';
