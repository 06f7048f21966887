// Identified readers (issue 44; docs/access.md, "Who reads"; docs/privacy.md): GET
// /flipbooks/:id/links/:linkId/readers (JSON, or CSV with Accept: text/csv) and DELETE
// /readers/:email (erasure).
import { eraseReader, listLinkReaders, readersCsv } from '../../app/readerFigures.ts';
import { LinkReaderList, ReaderErasedAnswer, ReaderParams } from '../../contract/readers.ts';
import { error } from '../endpoint.ts';
import { apiEndpoint, busy, LinkPath, linkNotFound } from './declare.ts';

export const READER_ENDPOINTS = [
  apiEndpoint({
    method: 'get',
    path: '/flipbooks/:id/links/:linkId/readers',
    operationId: 'listShareLinkReaders',
    tag: 'flipbooks',
    summary: 'Who read through a share link (beyond the spec)',
    description:
      'The readers who gave their address at a link that asks for it (`identify`), each with when they opened it, how long they read, which pages they saw and whether they downloaded the PDF. With `Accept: text/csv`, the same as CSV. Anonymous readers are not listed (their figures are the flipbook’s statistics); erased readers neither.',
    params: LinkPath,
    ok: { status: 200, description: 'Its readers', schema: LinkReaderList },
    errors: {
      400: error('`Invalid flipbook ID`'),
      404: linkNotFound,
    },
    handle: ({ caller, params }, deps) => listLinkReaders(deps, caller, params.id, params.linkId),
    csv: readersCsv,
  }),

  apiEndpoint({
    method: 'delete',
    path: '/readers/:email',
    operationId: 'eraseReader',
    tag: 'flipbooks',
    summary: 'Erase a reader (beyond the spec)',
    description:
      'Erases what the workspace keeps of an identified reader (the address, percent-encoded in the path; any letter case): their address goes from every link’s readers, allow lists, queued mails and kept webhook payloads, and their key is deleted, so that nothing sealed for them opens again. Their reading figures stay, without a name. Recorded in the audit trail (`ReaderErased`) without the address; the audit chain still verifies.',
    params: { schema: ReaderParams, invalid: 'Invalid email' },
    ok: { status: 200, description: 'Erased', schema: ReaderErasedAnswer },
    errors: { 400: error('`the address is not an email address: …`'), 503: busy },
    handle: ({ caller, params }, deps) => eraseReader(deps, caller, params.email),
  }),
];
