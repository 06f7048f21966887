// "Are you sure?" as a page of its own: a Delete button leads here (a GET, changing nothing), and
// only this page's form deletes. It works the same with and without JavaScript.
import type { SignedIn } from '../../app/accounts/sessions.ts';
import { html } from '../../http/html.ts';
import { dashboardPage } from '../layout.ts';

export const confirmPage = (
  signedIn: SignedIn,
  o: {
    title: string;
    question: string;
    explanation: string;
    action: string;
    button: string;
    back: string;
    /** a deletion's red button (the default), or the accent of an action that is not one */
    tone?: 'danger' | 'primary';
    /** what the form carries besides its token (an address to erase): never in the URL */
    fields?: Record<string, string>;
  },
) =>
  dashboardPage(
    signedIn,
    'flipbooks',
    o.title,
    html`<section class="panel narrow confirm" aria-labelledby="confirm-title">
<h1 id="confirm-title">${o.question}</h1>
<p>${o.explanation}</p>
<form method="post" action="${o.action}" class="confirm-actions">
<input type="hidden" name="_csrf" value="${signedIn.csrfToken}">
${Object.entries(o.fields ?? {}).map(
  ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">
`,
)}<button type="submit" class="${o.tone === 'primary' ? 'primary' : 'danger solid'}" autofocus>${o.button}</button>
<a class="button" href="${o.back}">Cancel</a>
</form>
</section>`,
  );
