// The pages a share link that asks who reads shows before its book (issue 44; docs/access.md,
// "Who reads"): the address form, with the notice of what the sender will see and the link's
// terms to accept, and the code form once a code was mailed. Plain forms that post and redirect
// (no script needed); every value escaped by `html`. Nothing typed is ever shown back but the
// address on the code page, to the browser that typed it.
import { html } from '../http/html.ts';
import { fill } from './client/words.ts';
import { noindex, problemLine, shell } from './readerPage.ts';
import type { Language } from './words/language.ts';

export type IdentifyForm = {
  action: string;
  verify: boolean;
  watermark: boolean;
  terms: string | null;
  /** what was typed, given back after a refusal (this browser's own) */
  email?: string;
  problem?: string | null;
};

/**
 * The field's attributes: one aria-describedby, naming the problem first and then the hint (a
 * second attribute would be ignored), and aria-invalid while there is a problem.
 */
const describedBy = (problem: string | null | undefined, problemId: string, hintId: string) =>
  problem
    ? html` aria-describedby="${problemId} ${hintId}" aria-invalid="true"`
    : html` aria-describedby="${hintId}"`;

export const identifyPage = (l: Language, form: IdentifyForm) => {
  const w = l.words;
  return shell(
    l,
    noindex(w.identifyTitle),
    html`<main class="message identify" id="identify-required">
<h1>${w.identifyHeading}</h1>
<p id="identify-notice">${w.identifyNotice}${form.verify ? html` ${w.verifyNotice}` : ''}${form.watermark ? html` ${w.watermarkNotice}` : ''}</p>
<form class="password-form" method="post" action="${form.action}">
<input type="hidden" name="step" value="email">
${problemLine(form.problem, 'identify-problem')}<label for="email">${w.emailAddress}</label>
<input id="email" name="email" type="email" autocomplete="email" inputmode="email" required maxlength="254" value="${form.email ?? ''}" autofocus${describedBy(form.problem, 'identify-problem', 'identify-notice')}>
${form.terms ? termsBlock(l, form.terms) : ''}<div class="identify-actions"><button type="submit">${w.continueReading}</button></div>
</form>
</main>`,
  );
};

const termsBlock = (
  l: Language,
  terms: string,
) => html`<h2 class="terms-heading" id="terms-heading">${l.words.termsHeading}</h2>
<div class="terms" tabindex="0" role="region" aria-labelledby="terms-heading">${terms.split(/\n{2,}/).map((p) => html`<p>${p}</p>`)}</div>
<label class="check"><input type="checkbox" name="accept" value="yes" required> ${l.words.acceptTerms}</label>
`;

export const codePage = (
  l: Language,
  form: { action: string; email: string; problem?: string | null },
) => {
  const w = l.words;
  return shell(
    l,
    noindex(w.codeTitle),
    html`<main class="message identify" id="code-required">
<h1>${w.codeHeading}</h1>
<p id="code-hint">${fill(w.codeHint, { email: form.email })}</p>
<form class="password-form" method="post" action="${form.action}">
<input type="hidden" name="step" value="code">
${problemLine(form.problem, 'code-problem')}<label for="code">${w.code}</label>
<div class="password-row">
<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required maxlength="12" autofocus${describedBy(form.problem, 'code-problem', 'code-hint')}>
<button type="submit">${w.open}</button>
</div>
</form>
<form class="other-address" method="post" action="${form.action}">
<input type="hidden" name="step" value="restart">
<button type="submit" class="link-button">${w.otherAddress}</button>
</form>
</main>`,
  );
};
