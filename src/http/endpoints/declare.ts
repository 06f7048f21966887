// What every API endpoint declaration shares: the dependencies its handler gets, and the words of
// the answers several endpoints give. The words here are only what the schemas cannot say: which
// errors an endpoint gives and why. Every endpoint also gets the answers all share (401, 413,
// 429, 500, 503; src/http/openapi.ts).

import type { ApiDeps } from '../../app/apiDeps.ts';
import type { Clock } from '../../app/clock.ts';
import type { KeyUsage } from '../../app/keyUsage.ts';
import type { StampedDownloads } from '../../app/stampedDownloads.ts';
import { FlipbookIdParams, SlugParams } from '../../contract/flipbooks.ts';
import { ShareLinkParams } from '../../contract/shareLinks.ts';
import { VersionIdsParams } from '../../contract/versions.ts';
import { WebhookIdParams } from '../../contract/webhooks.ts';
import { InvalidInput, NotFound } from '../../domain/errors.ts';
import * as fields from '../../domain/flipbookFields.ts';
import { PLAN_LIMITS } from '../../domain/plans.ts';
import type { Logger } from '../../log.ts';
import { type Answer, endpoint, error } from '../endpoint.ts';

export type EndpointDeps = ApiDeps & {
  log: Logger;
  keyUsage: KeyUsage;
  clock: Clock;
  /** webhooks may reach private addresses (flipbook serve --webhook-allow-private) */
  webhookAllowPrivate: boolean;
  /** the operator's address, the OpenAPI document's info.contact (flipbook serve --contact-email) */
  contactEmail?: string | null;
  /** a mail server was given (serve --smtp-url): links may ask for codes and notify (issue 44) */
  mailConfigured?: boolean;
  /** the installation's secret: opens readers' sealed addresses (src/app/readerIdentity.ts) */
  secret?: string;
  /** downloads stamped with their reader, forgotten with them (src/app/stampedDownloads.ts) */
  stamped?: StampedDownloads;
};

export const apiEndpoint = endpoint<EndpointDeps>();

// --- path parameters, with the words for a value refused ---

export const FlipbookParams = { schema: FlipbookIdParams, invalid: 'Invalid flipbook ID' };
export const VersionParams = { schema: VersionIdsParams, invalid: 'Invalid IDs' };
export const WebhookParams = {
  schema: WebhookIdParams,
  invalid: (params: Record<string, string>): never => {
    throw new NotFound(`No webhook with id ${params.webhookId}`);
  },
};
export const SlugPath = {
  schema: SlugParams,
  invalid: (params: Record<string, string>): never => {
    fields.slug(params.slug ?? ''); // throws in the field's own words
    throw new InvalidInput('Invalid slug');
  },
};
/** /flipbooks/:id/links/:linkId and below: the flipbook's id in words, else an unknown link. */
export const LinkPath = {
  schema: ShareLinkParams,
  invalid: (params: Record<string, string>): never => {
    if (!/^[0-9a-f-]{36}$/i.test(params.id ?? '')) throw new InvalidInput('Invalid flipbook ID');
    throw new NotFound('Share link not found');
  },
};

// --- answers several endpoints give ---

/** src/store/handleCommand.ts's StoreBusy: conflicts with other processes outlasted the retries. */
export const busy: Answer = {
  description:
    '`The server is busy with concurrent changes to this resource; try again`: other processes kept changing the flipbook at the same moment for several seconds (conflicts are retried inside the server first; it never answers 409). Also, as on every route, `The database is unavailable right now; try again shortly` while the database is down or restarting',
  error: true,
  retryAfter: true,
};
export const full: Answer = { ref: 'InsufficientStorage' };

export const plans = (pick: (limits: (typeof PLAN_LIMITS)['free']) => number, unit = '') =>
  Object.entries(PLAN_LIMITS)
    .map(([plan, limits]) => `${plan} ${pick(limits)}${unit}`)
    .join(', ');
export const MB = 1024 * 1024;

export const nul = (field: string) => `\`Invalid ${field}: it contains a NUL character\``;
export const malformedUpload =
  'a malformed multipart body, more than one file, more than 20 fields, a field over 64 KB, ' +
  '`Invalid Idempotency-Key: …` (refused before the upload is read), ' +
  'or `Workspace not found` (the key outlived its workspace)';
export const uploadRefused =
  '`Idempotency-Key already used for another request in the last 24 hours: …`, ' +
  '`The file is empty`, `The file is not a kind this service takes (<the kinds>)`, ' +
  '`File is not a readable PDF: <reason>`, `The document unpacks to <n> MB, more than the 1024 MB accepted`, ' +
  '`This server does not convert office documents (it runs without LibreOffice): …`, ' +
  '`The image could not be read: …`, ' +
  `\`File too large for the <plan> plan: …\` (${plans((l) => l.maxUploadBytes / MB, ' MB')}), ` +
  `\`Too many pages for the <plan> plan: …\` (${plans((l) => l.maxPagesPerVersion)} pages per document)`;
export const slugTaken = '`Slug "<slug>" is already used by another flipbook in this workspace`';
export const flipbookNotFound = error(
  '`Flipbook not found` (also for a flipbook of another workspace)',
);
export const linkNotFound = error(
  '`Flipbook not found` (also another workspace’s), or `Share link not found` (also a revoked one)',
);
export const versionNotFound = error(
  '`Version not found` (also for a deleted version, or one of another flipbook or workspace)',
);
export const badIds = error('`Invalid IDs`, or `Workspace not found`');
