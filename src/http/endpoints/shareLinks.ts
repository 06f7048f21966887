// A flipbook's share links (beyond the spec; docs/access.md): POST/GET /flipbooks/:id/links,
// GET/PATCH/DELETE /flipbooks/:id/links/:linkId.
import type { TObject } from '@sinclair/typebox';
import { shareLinksOf } from '../../app/shareLinks.ts';
import {
  CreatedShareLink,
  CreateShareLinkBody,
  EditShareLinkBody,
  MAX_LINK_PASSWORD,
  MIN_LINK_PASSWORD,
  ShareLink,
  ShareLinkList,
  ShareLinkRevoked,
} from '../../contract/shareLinks.ts';
import type { Failure } from '../../contract/validate.ts';
import { InvalidInput } from '../../domain/errors.ts';
import { MAX_ALLOW, MAX_LABEL, MAX_LINKS, MAX_TERMS } from '../../domain/flipbook/shareLinks.ts';
import { MAX_EDIT_BYTES } from '../editBody.ts';
import { type Answer, error, type JsonBody } from '../endpoint.ts';
import {
  apiEndpoint,
  busy,
  FlipbookParams,
  flipbookNotFound,
  LinkPath,
  linkNotFound,
} from './declare.ts';

const FIELDS = [
  'label',
  'expires_at',
  'password',
  'allow_download',
  'identify',
  'terms',
  'allow',
  'watermark',
  'notify',
];

/** A field's refusal in the house's words, not Ajv's. */
const WRONG: Record<string, string> = {
  label: `Invalid label: a string of at most ${MAX_LABEL} characters`,
  expires_at: 'Invalid expires_at: a date and time (RFC 3339, e.g. 2027-01-31T17:00:00Z), or null',
  password: `Invalid password: ${MIN_LINK_PASSWORD} to ${MAX_LINK_PASSWORD} characters, or null for none`,
  allow_download: 'Invalid allow_download: must be true or false',
  identify: 'Invalid identify: one of "none", "email", "verified_email"',
  terms: `Invalid terms: a text of at most ${MAX_TERMS} characters, or null for none`,
  allow: `Invalid allow: a list of at most ${MAX_ALLOW} addresses or domains, or null for anyone`,
  watermark: 'Invalid watermark: must be true or false',
  notify: 'Invalid notify: must be true or false',
};

const linkBody =
  <B>(creating: boolean) =>
  (value: unknown, failures: Failure[]): B => {
    const first = failures[0];
    if (!first) return value as B;
    if (first.instancePath === '' && first.keyword === 'type') {
      throw new InvalidInput(
        creating
          ? 'The body must be a JSON object with label, and optionally expires_at, password, allow_download'
          : `The body must be a JSON object with any of ${FIELDS.join(', ')}`,
      );
    }
    if (first.keyword === 'additionalProperties') {
      const key = (first.params as { additionalProperty: string }).additionalProperty;
      throw new InvalidInput(
        `Unknown field ${JSON.stringify(key).slice(0, 100)}: use ${FIELDS.join(', ')}`,
      );
    }
    if (first.keyword === 'required') throw new InvalidInput('label is required');
    const field = first.instancePath.split('/')[1] ?? 'body';
    throw new InvalidInput(WRONG[field] ?? `Invalid ${field}`);
  };

const linkBodySpec = <B>(json: TObject, creating: boolean): JsonBody<B> => ({
  json,
  limit: MAX_EDIT_BYTES,
  what: 'a share link',
  read: linkBody<B>(creating),
});

/** What a create or an edit is refused with (a 404 of the flipbook, or of the link too). */
const bodyRefusals = (notFound: Answer) => ({
  400: error(`\`Invalid flipbook ID\`, ${refusedFields}`),
  404: notFound,
  413: error(`\`Request body too large: a share link is at most ${MAX_EDIT_BYTES / 1024} KB\``),
  503: busy,
});

const refusedFields =
  '`label is required`, `Invalid label: …`, `Invalid expires_at: it must be in the future`, `Invalid password: …`, `Invalid identify: …`, `allow entry <n> is not an email address: …`, `watermark needs the reader\'s address: …`, `Unknown field "<name>": …`, `Malformed JSON body`';

export const SHARE_LINK_ENDPOINTS = [
  apiEndpoint({
    method: 'post',
    path: '/flipbooks/:id/links',
    operationId: 'createShareLink',
    tag: 'flipbooks',
    summary: 'Create a share link (beyond the spec)',
    description: `A link to the flipbook's reader for one recipient, whatever its visibility: a random token of 256 bits in its \`url\`, shown this once. It may expire, ask for a password and forbid downloading; it may ask who reads (an address, or one proven by a mailed code), with terms to accept, limited to some addresses or domains, marking every page with the reader's address and telling its creator when they read (docs/access.md, "Who reads"). At most ${MAX_LINKS} live links per flipbook.`,
    params: FlipbookParams,
    body: linkBodySpec<CreateShareLinkBody>(CreateShareLinkBody, true),
    ok: { status: 201, description: 'The link, with its URL', schema: CreatedShareLink },
    errors: {
      ...bodyRefusals(flipbookNotFound),
      422: error(
        `\`A flipbook has at most ${MAX_LINKS} share links: …\`, \`identify "verified_email" (a code is mailed) needs mail, and this service has no mail server: …\``,
      ),
    },
    handle: ({ caller, params, body }, deps) => shareLinksOf(deps, caller, params.id).create(body),
  }),

  apiEndpoint({
    method: 'get',
    path: '/flipbooks/:id/links',
    operationId: 'listShareLinks',
    tag: 'flipbooks',
    summary: 'A flipbook’s share links (beyond the spec)',
    description: 'Every live link, oldest first, with how often it was opened; never a token.',
    params: FlipbookParams,
    ok: { status: 200, description: 'Its links', schema: ShareLinkList },
    errors: { 400: error('`Invalid flipbook ID`'), 404: flipbookNotFound },
    handle: ({ caller, params }, deps) => shareLinksOf(deps, caller, params.id).list(),
  }),

  apiEndpoint({
    method: 'get',
    path: '/flipbooks/:id/links/:linkId',
    operationId: 'getShareLink',
    tag: 'flipbooks',
    summary: 'One share link (beyond the spec)',
    description: 'Its label, expiry, password and download settings, and how often it was opened.',
    params: LinkPath,
    ok: { status: 200, description: 'The link, without its token', schema: ShareLink },
    errors: { 400: error('`Invalid flipbook ID`'), 404: linkNotFound },
    handle: ({ caller, params }, deps) => shareLinksOf(deps, caller, params.id).get(params.linkId),
  }),

  apiEndpoint({
    method: 'patch',
    path: '/flipbooks/:id/links/:linkId',
    operationId: 'editShareLink',
    tag: 'flipbooks',
    summary: 'Change a share link (beyond the spec)',
    description:
      'Any of its label, expiry, password (null removes it), downloads and what it asks of readers; its URL stays the same. A new password asks readers who gave the old one again; so does a change to identify, terms or allow.',
    params: LinkPath,
    body: linkBodySpec<EditShareLinkBody>(EditShareLinkBody, false),
    ok: { status: 200, description: 'The link as changed', schema: ShareLink },
    errors: {
      ...bodyRefusals(linkNotFound),
      422: error(
        '`notify (the creator is mailed) needs mail, and this service has no mail server: …`',
      ),
    },
    handle: ({ caller, params, body }, deps) =>
      shareLinksOf(deps, caller, params.id).edit(params.linkId, body),
  }),

  apiEndpoint({
    method: 'delete',
    path: '/flipbooks/:id/links/:linkId',
    operationId: 'revokeShareLink',
    tag: 'flipbooks',
    summary: 'Revoke a share link (beyond the spec)',
    description:
      'At once, on every daemon: its URL and every page already open through it answer 404.',
    params: LinkPath,
    ok: { status: 200, description: 'Revoked', schema: ShareLinkRevoked },
    errors: { 400: error('`Invalid flipbook ID`'), 404: linkNotFound, 503: busy },
    handle: ({ caller, params }, deps) =>
      shareLinksOf(deps, caller, params.id).revoke(params.linkId),
  }),
];
