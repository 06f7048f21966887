// The ids, moments and uploaded file the domain's unit tests share (deciders, share links, user
// records): one flipbook in one workspace, its versions numbered, one "now" and a day before it.
import type { UploadedFile } from '../../src/domain/flipbook/flipbook.ts';

export const FLIPBOOK_ID = '0b9f6c2e-5d1a-4c3b-9e8f-1a2b3c4d5e6f';
export const WORKSPACE_ID = '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f';

/** Version n's id, its digits throughout: 11111111-1111-4111-8111-111111111111 for version 1. */
export const versionId = (n: number) => {
  const d = String(n);
  return `${d.repeat(8)}-${d.repeat(4)}-4${d.repeat(3)}-8${d.repeat(3)}-${d.repeat(12)}`;
};

export const EARLIER_ISO = '2025-03-01T09:00:00.000Z';
export const NOW_ISO = '2025-03-02T14:15:16.789Z';
export const NOW = new Date(NOW_ISO);

/** The flipbook's ids, as its commands and events carry them. */
export const book = { flipbookId: FLIPBOOK_ID, workspaceId: WORKSPACE_ID };
/** An event's common fields: past events are stamped EARLIER_ISO, expected new ones NOW_ISO. */
export const past = { ...book, occurredAt: EARLIER_ISO };
export const now = { ...book, occurredAt: NOW_ISO };

/** An uploaded PDF as a version's command and event carry it. */
export const pdfFile = (name: string, size = 1000, checksum = 'ab'.repeat(32)): UploadedFile => ({
  name,
  type: 'pdf',
  mimeType: 'application/pdf',
  size,
  checksum,
});
