// Each process's own local folder for renders and upload spools, `<host>.<pid>.<uuid>.scratch`
// in a folder of scratch folders: named after its owner, so a process that starts on the same
// host can tell a dead process's folder (killed mid-render) from a live one's and remove it.
import { lstat, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
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
