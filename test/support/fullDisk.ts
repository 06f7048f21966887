// A small disk made full, for the tests of what the service does when its disk refuses a byte.
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** Writes into `dir` until its disk refuses a byte more (a file named `filler`). */
export const fillDisk = (dir: string) => {
  const fd = openSync(join(dir, 'filler'), 'a');
  try {
    for (const size of [64 * 1024, 4096, 1]) {
      try {
        for (;;) writeSync(fd, Buffer.alloc(size));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    }
  } finally {
    closeSync(fd);
  }
};
