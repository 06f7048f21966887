// The one way an upload becomes a version: a new flipbook, a new version, a publish to a slug
// (src/app/flipbooks.ts), and the kinds of upload still to come. Each kind says only what is its
// own (its idempotency target, its checks, its command, its answer); the order is the pipeline's:
//   1. the idempotency key: within its window, the first answer again (remade from the read
//      tables if the first request's was lost with a crash);
//   2. a quick refusal before the slow inspection (a full plan), then the inspection
//      (acceptUpload: a PDF, an office document, an image);
//   3. under the workspace's lock (one lock guards every quota of a workspace, in this process or
//      any other on the database): the key again (the same key sent twice at once), the check
//      that decides, the original committed, the command appended with the key in its metadata;
//   4. what goes with the command (the kind's `after`), then the answer kept for the key, and
//      returned.
// An original committed for a command that then failed is removed (withStoredOriginal).

import type { FlipbookCommand } from '../domain/flipbook/decide.ts';
import type { UploadedFile } from '../domain/flipbook/flipbook.ts';
import type { IdempotentUpload } from '../readTables/idempotentUploads.ts';
import { findVersion, type VersionRow } from '../readTables/versions.ts';
import { acceptUpload } from './acceptUpload.ts';
import type { ApiDeps } from './apiDeps.ts';
import type { Caller } from './caller.ts';
import { runFlipbookCommand } from './commands.ts';
import { estimateSeconds } from './estimate.ts';
import {
  idempotencyOf,
  keepAnswer,
  priorAnswer,
  type UploadOptions,
  withKey,
} from './idempotentUploads.ts';
import type { ReceivedUpload } from './received.ts';
import { withStoredOriginal } from './versionFiles.ts';

/** What was decided under the lock: where the version goes, and the command that records it. */
export type Decided = {
  flipbookId: string;
  versionId: string;
  command: (file: UploadedFile, at: Date) => FlipbookCommand;
};

/** The fields every upload's answer ends with, in the spec's order: size, estimate, time. */
export type UploadFacts = {
  file_size: number;
  estimated_seconds: number;
  created_at_unix: number;
};

/** A key seen before whose first answer was lost (a crash): what its answer is made again from. */
export type Prior = {
  prior: IdempotentUpload;
  /** the version it made, as the read table has it (null once deleted) */
  version: VersionRow | null;
  facts: UploadFacts;
};

export type UploadKind<D extends Decided, A> = {
  /** the idempotency fingerprint's operation and target (a flipbook's id, a slug, none) */
  operation: string;
  target: string | null;
  /** the answer made again from the read tables, for a key whose first answer was not kept */
  remake: (again: Prior) => Promise<A>;
  /** before the inspection: a refusal that costs nothing (a missing flipbook, a full plan) */
  before?: () => Promise<void>;
  /** under the workspace's lock: the checks that decide, and where the version goes */
  decide: (file: UploadedFile) => Promise<D>;
  /** after the command's append, outside the lock: what goes with it (e.g. replaced files) */
  after?: (decided: D) => Promise<void>;
  answer: (decided: D, facts: UploadFacts) => A;
};

export const runUpload = async <D extends Decided, A extends object>(
  deps: ApiDeps,
  caller: Caller,
  upload: ReceivedUpload,
  options: UploadOptions,
  kind: UploadKind<D, A>,
): Promise<A> => {
  const { store } = deps;
  const idempotency = idempotencyOf(options, deps.clock.now(), kind.operation, kind.target, upload);
  const replayed = (answer: A) => {
    options.replayed?.();
    return answer;
  };
  const remake = async (prior: IdempotentUpload) => {
    const version = await findVersion(
      store.db,
      caller.workspaceId,
      prior.flipbook_id,
      prior.version_id,
    );
    const facts = {
      file_size: Number(version?.file_size ?? 0),
      estimated_seconds: await estimateSeconds(store.db, null),
      created_at_unix: Math.floor(Date.parse(prior.created_at) / 1000),
    };
    return kind.remake({ prior, version, facts });
  };
  const first = await priorAnswer(store.db, caller, idempotency, remake);
  if (first) return replayed(first);
  await kind.before?.();
  const { file, pages, ref } = await acceptUpload(caller.plan, upload.file, deps.convertsOffice);
  const done = await withStoredOriginal(store, deps.blobs, file.checksum, (stored) =>
    store.locks.workspace(caller.workspaceId, async () => {
      const again = await priorAnswer(store.db, caller, idempotency, remake);
      if (again) return { kind: 'again' as const, answer: again };
      const decided = await kind.decide(file);
      await deps.blobs.commitOriginal(ref, file.checksum);
      stored();
      const at = deps.clock.now();
      await runFlipbookCommand(
        store,
        decided.flipbookId,
        decided.command(file, at),
        withKey(caller.metadata, idempotency),
      );
      return { kind: 'made' as const, decided, at };
    }),
  );
  if (done.kind === 'again') return replayed(done.answer);
  await kind.after?.(done.decided);
  const answer = kind.answer(done.decided, {
    file_size: file.size,
    estimated_seconds: await estimateSeconds(store.db, pages, file.type),
    created_at_unix: Math.floor(done.at.getTime() / 1000),
  });
  await keepAnswer(store.db, caller, idempotency, done.decided.versionId, answer);
  return answer;
};
