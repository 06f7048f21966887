// Each process's own local folder for renders and upload spools, `<host>.<pid>.<uuid>.scratch`
// in a folder of scratch folders: named after its owner, so a process that starts on the same
// host can tell a dead process's folder (killed mid-render) from a live one's and remove it.
import { lstat, mkdir, readdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { MachineFailure } from '../domain/errors.ts';
import { isAlive } from '../isAlive.ts';
import { temporaryName, thisOwner } from './listing.ts';

/** Sweeps the dead processes' folders in `parent`, then makes this process's own. */
export const makeScratch = async (parent: string): Promise<string> => {
  await sweepScratch(parent);
  const scratch = join(parent, `${temporaryName().replace(/\.part$/, '')}.scratch`);
  await mkdir(scratch, { recursive: true });
  return scratch;
};

const sweepScratch = async (dir: string) => {
  const me = thisOwner();
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const owned = /^(.+)\.(\d+)\.[0-9a-f-]{36}\.scratch$/.exec(name);
    if (!owned || owned[1] !== me.host) continue;
    const pid = Number(owned[2]);
    if (pid === me.pid) {
      // Our pid: an earlier process had it (pid 1 in a container) if the folder is older than us.
      const info = await lstat(join(dir, name)).catch(() => null);
      if (!info || info.mtimeMs >= performance.timeOrigin) continue;
    } else if (isAlive(pid)) continue;
    await rm(join(dir, name), { recursive: true, force: true }).catch(() => {});
  }
};

/**
 * The machine's failure behind an error of a file in a scratch folder (an upload's local copy on
 * a bucket): the local disk's, never the store's nor the client's, so a 503 with Retry-After
 * (the temporary disk's) and not the blob store's 507. `path`: the file, or the folder, that failed.
 */
export const scratchFailure = (error: unknown, path: string, what: string) => {
  if (error instanceof MachineFailure) return error;
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const cause = code === 'ENOSPC' || code === 'EDQUOT' ? 'no space left' : (code ?? String(error));
  const folder = dirname(path);
  return new MachineFailure(`${what}: ${cause} in ${folder}`, folder);
};
