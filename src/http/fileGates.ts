// Who may have a version's files (src/http/files.ts serves them), asked of every request once the
// version is known: at /files/ a public book's (and its workspace's, signed in or with its API
// key), at /a/<grant>/ whoever holds a grant to the book, at /p/<token>/ a live preview's.
import type { IncomingMessage } from 'node:http';
import { currentSession } from '../app/accounts/sessions.ts';
import { type AccessDeps, grantAllows } from '../app/readerAccess.ts';
import type { VersionAccess } from '../queries/access.ts';
import type { Db } from '../readTables/readTable.ts';
import { authenticate } from './auth.ts';
import { sessionTokenOf } from './cookies.ts';

/**
 * Who may have a version's files, asked of every request once the version is known: null when
 * they may not (a 404, as for an unknown id), else whether the original may be downloaded and
 * whether the answer is private (never cached by anyone but this browser, revalidated each time).
 */
export type FileGate = (version: VersionAccess) => Promise<GateAnswer | null>;

export type GateAnswer = {
  download: boolean;
  private: boolean;
  /**
   * A link's reader's mark (issue 44, `watermark`): every image and download is stamped with it,
   * for `readerId`
   */
  stamp?: { text: string; readerId: string } | null;
  /** the identified reader it is for (their downloads counted) */
  readerId?: string | null;
};

/**
 * /files/...: a public book's; another's to the API key of its workspace (the API's answers name
 * these URLs) or to its members signed in to the dashboard (its pages show these images).
 */
export const publicGate =
  (deps: { db: Db; access: AccessDeps }, req: IncomingMessage): FileGate =>
  async (version) => {
    const open = { download: version.download_allowed, private: false };
    // A preview's files are its address's (/p/<token>/...), and the workspace's: never public.
    if (version.visibility === 'public' && !version.preview) return open;
    const { store, clock } = deps.access;
    if (req.headers.authorization) {
      const caller = await authenticate(deps.db, req, clock.now()).catch(() => null);
      return caller?.workspaceId === version.workspace_id ? { ...open, private: true } : null;
    }
    const token = sessionTokenOf(req);
    const session = token ? await currentSession(store, token, clock) : null;
    return session?.workspace.id === version.workspace_id ? { ...open, private: true } : null;
  };

/** /a/<grant>/...: whoever holds a grant to the book that is still good (readerAccess.ts). */
export const grantGate =
  (access: AccessDeps, grant: string): FileGate =>
  async (version) => {
    const allowed = await grantAllows(access, grant);
    if (allowed?.flipbookId !== version.flipbook_id) return null;
    const { readerId, stamp } = allowed;
    return {
      download: version.download_allowed && allowed.download,
      private: true,
      readerId,
      stamp: stamp && readerId ? { text: stamp, readerId } : null,
    };
  };

/**
 * /p/<token>/...: a live preview's version, to whoever has its address (the address is the
 * secret, as a share link's); never cached but by the browser.
 */
export const previewGate =
  (access: AccessDeps, token: string): FileGate =>
  async (version) =>
    version.preview && access.previews.versionOf(token) === version.version_id
      ? { download: version.download_allowed, private: true }
      : null;
