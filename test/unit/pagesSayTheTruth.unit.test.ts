// What the dashboard and the reader's page say of a flipbook, rendered in process from the data a
// route hands them: a private flipbook is marked so beside its reader link (which answers "not
// found" to readers), a failed one is not published; the upload hint's words match what the form
// takes; a public reader's preview carries its description (escaped).
import { describe, expect, it } from 'vitest';
import type { FlipbookOverview } from '../../src/app/flipbookOverview.ts';
import type { Flipbook } from '../../src/contract/flipbooks.ts';
import { flipbookPage } from '../../src/dashboard/pages/flipbook.ts';
import { flipbooksPage } from '../../src/dashboard/pages/flipbooks.ts';
import { pdfForm } from '../../src/dashboard/pages/uploadForm.ts';
import { parseListQuery } from '../../src/http/listQuery.ts';
import type { ReaderBook } from '../../src/reader/readerData.ts';
import { readerPage } from '../../src/reader/readerPage.ts';
import { ENGLISH } from '../../src/reader/words/language.ts';

const ID = '6f1c2a9e-0d4b-4c39-9a57-3f2b8e1d7c40';
const WORKSPACE = '0b5d7a31-8c2e-4f6a-9d1b-2e3f4a5b6c7d';
const signedIn = {
  sessionId: 's',
  token: 't',
  csrfToken: 'c',
  person: { id: 'p', email: 'p@example.com', workspaceId: WORKSPACE, role: 'owner' as const },
  workspace: { id: WORKSPACE, name: 'acme', plan: 'team' as const },
  caller: () => {
    throw new Error('not used');
  },
};

const flipbook = (fields: Partial<Flipbook> = {}): Omit<Flipbook, 'pages'> => ({
  id: ID,
  title: 'Spring catalogue',
  slug: 'spring-catalogue',
  description: '',
  direction: 'auto',
  status: 'published',
  availability: 'available',
  visibility: 'public',
  embed_origins: [],
  allow_download: true,
  url: `https://books.example/f/${ID}`,
  created_at: '2026-03-04T05:06:07Z',
  updated_at: '2026-03-04T05:06:07Z',
  versions: [],
  ...fields,
});

const grid = (cards: Parameters<typeof flipbooksPage>[1]['cards']) =>
  String(flipbooksPage(signedIn, { cards, totalPages: 1 }, parseListQuery(new URLSearchParams())));

const page = (book: Omit<Flipbook, 'pages'>, failed = false) => {
  const overview: FlipbookOverview = {
    flipbook: book,
    activeVersionId: failed ? null : 'a1b2c3d4-0000-4000-8000-000000000001',
    downloadAllowed: true,
    failed,
    versions: [
      {
        id: 'a1b2c3d4-0000-4000-8000-000000000001',
        number: 1,
        status: failed ? 'error' : 'done',
        isActive: !failed,
        activateOnDone: true,
        fileName: 'spring.pdf',
        fileSize: 1024,
        pageCount: failed ? 0 : 3,
        pagesReady: failed ? 0 : 3,
        error: failed ? 'The PDF is password-protected' : null,
        createdAt: '2026-03-04T05:06:07Z',
      },
    ],
  };
  return String(
    flipbookPage(
      signedIn,
      overview,
      { events: [], numbers: new Map(), labels: new Map(), page: 1, totalPages: 1 },
      [],
    ),
  );
};

describe('the dashboard says who may read a flipbook', () => {
  it('the grid: a badge for members only and share links only, none for public', () => {
    const active = { id: 'v', status: 'done' as const, pageCount: 3 };
    const html = grid([
      { flipbook: flipbook({ title: 'Open' }), failed: false, active },
      { flipbook: flipbook({ title: 'Team', visibility: 'workspace' }), failed: false, active },
      { flipbook: flipbook({ title: 'Links', visibility: 'links' }), failed: false, active },
      {
        flipbook: flipbook({ title: 'Broken', availability: 'failed' }),
        failed: true,
        active: null,
      },
    ]);
    const tiles = html.split('<li class="tile">').slice(1);
    expect(tiles[0]).toContain('<span class="badge published">Published</span>');
    expect(tiles[0]).not.toContain('badge private');
    expect(tiles[1]).toContain('<span class="badge private">Members only</span>');
    expect(tiles[2]).toContain('<span class="badge private">Share links only</span>');
    expect(tiles[3]).toContain('<span class="badge failed">Failed</span>');
    expect(tiles[3]).toContain('No version could be processed');
  });

  it('a flipbook’s page: beside its reader link, what that link does for a private one', () => {
    const links = page(flipbook({ visibility: 'links' }));
    expect(links).toContain('<span class="badge private">Share links only</span>');
    expect(links).toContain(
      `<p class="note">Share links only: this link opens only for the workspace’s members, signed in; anyone else gets “not found”. Give readers a <a href="/dashboard/flipbooks/${ID}/links">share link</a>.</p>`,
    );
    const members = page(flipbook({ visibility: 'workspace' }));
    expect(members).toContain('<span class="badge private">Members only</span>');
    expect(members).toContain(
      'Members only: this link opens for the workspace’s members, signed in; anyone else is asked to sign in.',
    );
    const open = page(flipbook());
    expect(open).not.toContain('badge private');
    expect(open).not.toContain('this link opens');
    // A failed one offers no reader link at all, and says why.
    const failed = page(flipbook({ availability: 'failed' }), true);
    expect(failed).toContain('<span class="badge failed">Failed</span>');
    expect(failed).not.toContain('Open the reader');
    expect(failed).not.toContain('id="reader-link"');
  });

  it('the upload hint: one PDF without the script; the script’s words for several, a new flipbook only', () => {
    const form = (kind: 'flipbook' | 'version') =>
      String(pdfForm({ action: '/x', csrf: 'c', plan: 'team', id: 'f', kind, button: 'Upload' }));
    expect(form('flipbook')).toContain(
      '<span data-drop-words data-many="Drop one or more documents here, or choose them: each becomes a flipbook of its own.">Drop a PDF, an office document or an image here, or choose one.</span>',
    );
    expect(form('version')).toContain(
      '<span data-drop-words>Drop a PDF, an office document or an image here, or choose one.</span>',
    );
    expect(form('version')).not.toContain('data-many');
  });
});

describe('the reader’s preview', () => {
  const book = (description: string, isPublic = true): ReaderBook => ({
    id: ID,
    title: 'Spring catalogue',
    description,
    url: `https://books.example/f/${ID}`,
    versionId: null,
    status: 'pending',
    pageCount: 0,
    ready: 0,
    runs: [],
    pageBase: null,
    imageBase: null,
    hasLines: false,
    leadTexts: [],
    download: null,
    direction: 'ltr',
    lang: null,
    labelRuns: [],
    labelOf: String,
    isPublic,
    frameAncestors: 'frame-ancestors *',
    counted: false,
    brand: null,
  });

  it('a public flipbook’s description is its og:description, escaped', () => {
    const html = String(readerPage(book('Prices & sizes for "spring" <2027>'), ENGLISH));
    expect(html).toContain(
      '<meta property="og:description" content="Prices &amp; sizes for &quot;spring&quot; &lt;2027&gt;">',
    );
    expect(String(readerPage(book(''), ENGLISH))).not.toContain('og:description');
    // A private one shows nothing of itself to whatever fetches its link.
    expect(String(readerPage(book('Internal prices', false), ENGLISH))).not.toContain(
      'Internal prices',
    );
  });
});
