// A share link's reader rules as the dashboard's forms send them (issue 44; docs/access.md, "Who
// reads"): what was typed, kept as typed to show again with a refusal, and the body the use case
// takes. A field the page showed disabled (no mail server) sends nothing: on an edit, what it
// stood for stays as it is, never silently switched off.
import type { CreateShareLinkBody, ShareLink } from '../contract/shareLinks.ts';
import { InvalidInput } from '../domain/errors.ts';
import { IDENTIFY_MODES, type IdentifyMode, MAX_ALLOW } from '../domain/flipbook/shareLinks.ts';

/** The rules' fields as typed. */
export type RulesDraft = {
  identify: IdentifyMode;
  terms: string;
  /** one address or domain a line */
  allow: string;
  watermark: boolean;
  notify: boolean;
  /** limited to a list every address of which was erased: no one may read */
  closed?: boolean;
};

export const NO_RULES: RulesDraft = {
  identify: 'none',
  terms: '',
  allow: '',
  watermark: false,
  notify: false,
};

export const rulesOfLink = (link: ShareLink): RulesDraft => ({
  identify: link.identify,
  terms: link.terms ?? '',
  allow: link.allow.join('\n'),
  watermark: link.watermark,
  notify: link.notify,
  closed: link.allow_limited && link.allow.length === 0,
});

type Rules = Pick<CreateShareLinkBody, 'identify' | 'terms' | 'allow' | 'watermark' | 'notify'>;

const isMode = (value: string): value is IdentifyMode =>
  (IDENTIFY_MODES as readonly string[]).includes(value);

/**
 * The rules a form sent: `before` is the link's own (an edit) or none (a new link). Returns what
 * to show again and the body; throws nothing, so a refusal can still show what was typed.
 */
export const readRules = (
  form: URLSearchParams,
  before: RulesDraft,
  mailConfigured: boolean,
): { draft: RulesDraft; rules: () => Rules } => {
  const given = form.get('identify');
  const draft: RulesDraft = {
    identify: given !== null && isMode(given) ? given : before.identify,
    terms: form.get('terms') ?? '',
    allow: form.get('allow') ?? '',
    watermark: form.get('watermark') === 'true',
    notify: mailConfigured ? form.get('notify') === 'true' : before.notify,
  };
  const rules = (): Rules => {
    if (given !== null && !isMode(given)) {
      throw new InvalidInput('Choose who reads the link: one of the three choices');
    }
    const allow = draft.allow
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== '');
    if (allow.length > MAX_ALLOW) {
      throw new InvalidInput(
        `Only these readers: at most ${MAX_ALLOW} addresses and domains (${allow.length} given)`,
      );
    }
    const long = allow.findIndex((entry) => entry.length > 254);
    if (long >= 0) {
      throw new InvalidInput(`Only these readers: line ${long + 1} is longer than an address`);
    }
    return {
      // (a disabled choice sends nothing: the link's own stays)
      ...(given === null ? {} : { identify: draft.identify }),
      terms: draft.terms.trim() === '' ? null : draft.terms,
      // An allow list as it was stays as it is: a list emptied by erasures (which lets no one
      // in) is not opened to anyone by saving another change.
      ...(draft.allow === before.allow ? {} : { allow: allow.length === 0 ? null : allow }),
      watermark: draft.watermark,
      ...(mailConfigured ? { notify: draft.notify } : {}),
    };
  };
  return { draft, rules };
};

/** The rules' names as the form's fields say them. */
const FIELD_WORDS: Record<string, string> = {
  watermark: '“Mark each page with the reader’s address”',
  notify: '“Mail me when someone opens it”',
  allow: '“Only these readers”',
};

/**
 * A refusal of the rules in the form's words: the use case names the API's fields
 * (src/app/shareLinks.ts, src/domain/flipbook/shareLinks.ts). Other refusals pass as they are.
 */
export const inFormWords = (message: string) => {
  const needs = /^([a-z ]+?) needs? the reader's address: set identify to .*$/.exec(message);
  if (needs?.[1]) {
    const names = needs[1].split(' and ').map((name) => FIELD_WORDS[name] ?? name);
    return `${names.join(' and ')} need${names.length === 1 ? 's' : ''} the reader’s address: under “Who reads”, choose to ask for an email address`;
  }
  return message
    .replace(
      'identify "verified_email" (a code is mailed)',
      'Confirming the address with a mailed code',
    )
    .replace('notify (the creator is mailed)', FIELD_WORDS.notify as string);
};
