// Identified readers of a share link (issue 44; docs/access.md, "Who reads"): the shapes the API
// answers with, one definition each.
import { type Static, Type } from '@sinclair/typebox';
import { Named } from './common.ts';

const when = (description: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

export const LinkReader = Named(
  'LinkReader',
  {
    email: Type.String({ description: 'The address they gave' }),
    verified: Type.Boolean({ description: 'Whether they proved it with a mailed code' }),
    identified_at: Type.String({ format: 'date-time', description: 'When they gave it' }),
    terms_accepted_at: when('When they accepted the link’s terms; null: none asked'),
    first_opened_at: when('Their first open; null: not yet'),
    last_opened_at: when('Their last open; null: not yet'),
    opens: Type.Integer({ minimum: 0, description: 'How many times they opened it' }),
    read_seconds: Type.Integer({ minimum: 0, description: 'Time read, in seconds' }),
    pages_seen: Type.Integer({
      minimum: 0,
      description: 'Different pages seen (a second or more)',
    }),
    page_count: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
      description: 'Pages of the version they read; null: not yet opened',
    }),
    last_page: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
      description: 'The last page they were on',
    }),
    completed: Type.Boolean({ description: 'Whether they saw every page' }),
    downloads: Type.Integer({ minimum: 0, description: 'Downloads of the PDF through the link' }),
  },
  { description: 'A reader who gave their address at the link' },
);
export type LinkReader = Static<typeof LinkReader>;

export const LinkReaderList = Named('LinkReaderList', {
  readers: Type.Array(LinkReader, {
    description: 'Most recently opened first (at most 10,000)',
  }),
});
export type LinkReaderList = Static<typeof LinkReaderList>;

export const ReaderParams = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 1024, description: 'The reader’s address' }),
});

export const ReaderErasedAnswer = Named('ReaderErased', {
  erased: Type.Integer({
    minimum: 0,
    description:
      'How many reader records of the workspace lost the address (0: it knew none; the erasure is recorded all the same)',
  }),
});
export type ReaderErasedAnswer = Static<typeof ReaderErasedAnswer>;
