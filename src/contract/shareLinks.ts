// A flipbook's share links (beyond the spec; docs/access.md): the shapes the API answers with and
// takes, one definition each.
import { type Static, Type } from '@sinclair/typebox';
import {
  IDENTIFY_MODES,
  MAX_ALLOW,
  MAX_LABEL,
  MAX_LINK_PASSWORD,
  MAX_TERMS,
  MIN_LINK_PASSWORD,
} from '../domain/flipbook/shareLinks.ts';
import { Named, StringEnum, Uuid } from './common.ts';

export { MAX_LINK_PASSWORD, MIN_LINK_PASSWORD };

const label = Type.String({
  maxLength: MAX_LABEL,
  description: 'Who the link is for, for people (e.g. `Jane Doe, Acme`); not shown to the reader',
});
const expiresAt = Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
  description: 'When the link stops working (RFC 3339, in the future); null: never',
});
const password = Type.String({
  minLength: MIN_LINK_PASSWORD,
  maxLength: MAX_LINK_PASSWORD,
  description: `A password the reader must give first (${MIN_LINK_PASSWORD} to ${MAX_LINK_PASSWORD} characters, no control characters); stored as an argon2id hash`,
});
const allowDownload = Type.Boolean({
  description:
    'false: no download of the PDF through this link; true: as the flipbook allows (the default)',
});

// Who reads (issue 44; docs/access.md, "Who reads").
const identify = StringEnum(IDENTIFY_MODES, {
  description:
    'Whether the reader gives an address first: `none` (the default: anonymous, cookieless), `email` (an address, told what is recorded), `verified_email` (an address proven by a six-digit code mailed to it; needs a mail server)',
});
const terms = Type.Union([Type.String({ maxLength: MAX_TERMS }), Type.Null()], {
  description: `Text the reader must accept before reading (at most ${MAX_TERMS} characters; its text is kept with each acceptance); null: none`,
});
const allow = Type.Array(Type.String({ maxLength: 254 }), {
  maxItems: MAX_ALLOW,
  description: `Only these readers: addresses (\`bob@x.org\`) and domains (\`acme.com\`: its addresses, not its subdomains'), at most ${MAX_ALLOW}; an empty list or null: anyone who gives an address. Needs identify`,
});
const watermark = Type.Boolean({
  description:
    "Every page shows the reader's address and the day, drawn into the images, and a download is a PDF stamped the same. Needs identify",
});
const notify = Type.Boolean({
  description:
    "Mail the link's creator when an identified reader first opens it, and a summary when their reading ends. Needs identify and a mail server",
});

const linkFields = {
  id: Uuid('The link’s id (not its token)'),
  flipbook_id: Uuid('Its flipbook'),
  label,
  expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When it stops working; null: never',
  }),
  expired: Type.Boolean({ description: 'Whether it has stopped working by its expiry' }),
  has_password: Type.Boolean({ description: 'Whether it asks for a password' }),
  allow_download: allowDownload,
  opens: Type.Integer({ minimum: 0, description: 'How many times its reader was opened' }),
  last_opened_on: Type.Union([Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }), Type.Null()], {
    description: 'The last day (UTC) it was opened; null: never',
  }),
  created_at: Type.String({ format: 'date-time', description: 'When it was created' }),
  identify,
  terms,
  allow: Type.Array(Type.String(), {
    description: 'The addresses and domains it is limited to (domains in Unicode)',
  }),
  allow_limited: Type.Boolean({
    description:
      'Whether it is limited to `allow`: false lets anyone who gives an address read; true with an empty `allow` lets no one (every address it held was erased)',
  }),
  watermark,
  notify,
  readers: Type.Integer({
    minimum: 0,
    description: 'How many readers identified themselves at it (GET …/readers lists them)',
  }),
};

export const ShareLink = Named('ShareLink', linkFields, {
  description: 'A share link, without its token (shown once, when it is created)',
});
export type ShareLink = Static<typeof ShareLink>;

export const CreatedShareLink = Named(
  'CreatedShareLink',
  {
    ...linkFields,
    url: Type.String({
      format: 'uri',
      description:
        'The link to give its recipient: it holds a random token of 256 bits, shown this once (only its hash is kept)',
    }),
  },
  { description: 'A new share link, with its URL: shown this once' },
);
export type CreatedShareLink = Static<typeof CreatedShareLink>;

export const ShareLinkList = Named('ShareLinkList', {
  links: Type.Array(ShareLink, { description: 'Every live link, oldest first' }),
});
export type ShareLinkList = Static<typeof ShareLinkList>;

const readerRules = {
  identify: Type.Optional(identify),
  terms: Type.Optional(terms),
  allow: Type.Optional(Type.Union([allow, Type.Null()])),
  watermark: Type.Optional(watermark),
  notify: Type.Optional(notify),
};

export const CreateShareLinkBody = Type.Object(
  {
    label,
    expires_at: Type.Optional(expiresAt),
    password: Type.Optional(Type.Union([password, Type.Null()])),
    allow_download: Type.Optional(allowDownload),
    ...readerRules,
  },
  { additionalProperties: false },
);
export type CreateShareLinkBody = Static<typeof CreateShareLinkBody>;

export const EditShareLinkBody = Type.Object(
  {
    label: Type.Optional(label),
    expires_at: Type.Optional(expiresAt),
    password: Type.Optional(
      Type.Union([password, Type.Null()], { description: 'A new password; null: none' }),
    ),
    allow_download: Type.Optional(allowDownload),
    ...readerRules,
  },
  { additionalProperties: false },
);
export type EditShareLinkBody = Static<typeof EditShareLinkBody>;

export const ShareLinkParams = Type.Object({
  id: Uuid('Flipbook id'),
  linkId: Uuid('Share link id'),
});

export const ShareLinkRevoked = Named('ShareLinkRevoked', {
  id: Uuid('The link'),
  revoked: Type.Literal(true),
});
