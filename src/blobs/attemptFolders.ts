// Blob directories written before the object-store primitive kept each processing attempt in a
// folder of its own, with a `current` symlink saying which one the URLs show:
//   pages/<version>/attempt-<n>-<rand>/<pos>/…   and   pages/<version>/current -> attempt-…
// Pages now live at pages/<version>/<pos>/… as in a bucket. A directory store brings an old
// layout over when it opens, before it serves anything: the current attempt's files move up (by
// rename, so nothing is copied and a kill midway leaves every file in one place or the other; the
// next open finishes), then the link and every attempt folder go (those no link pointed at were
// never shown). Every daemon and worker of an older release must be stopped first: it reads only
// the old layout (docs/deploy.md, "Upgrading").
import { lstat, readdir, readlink, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const flattenAttemptFolders = async (pages: string) => {
  for (const version of await readdir(pages).catch(() => [] as string[])) {
    if (!UUID.test(version)) continue;
    const folder = join(pages, version);
    const names = await readdir(folder).catch(() => [] as string[]);
    if (!names.some((name) => name === 'current' || name.startsWith('attempt-'))) continue;
    const link = join(folder, 'current');
    if ((await lstat(link).catch(() => null))?.isSymbolicLink()) {
      const shown = join(folder, await readlink(link));
      for (const name of await readdir(shown).catch(() => [] as string[])) {
        // Only what the URLs showed: page folders and document.json (an interrupted render's
        // raw output, `work/`, goes with its attempt folder).
        if (!/^[1-9]\d*$/.test(name) && name !== 'document.json') continue;
        // Already moved by an open that was cut short (or another process opening now).
        if (await lstat(join(folder, name)).catch(() => null)) continue;
        await rename(join(shown, name), join(folder, name)).catch(ignoreGone);
      }
      await rm(link, { force: true });
    }
    for (const name of names) {
      if (name.startsWith('attempt-')) {
        await rm(join(folder, name), { recursive: true, force: true, maxRetries: 3 });
      }
    }
  }
};

const ignoreGone = (error: NodeJS.ErrnoException) => {
  if (error.code !== 'ENOENT') throw error;
};
