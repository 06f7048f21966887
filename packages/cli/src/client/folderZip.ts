// `flipbook publish <folder>`: a folder of images becomes one flipbook, one page an image (the
// server orders them by name as people read them). Its images (by name: .jpg .jpeg .png .webp
// .tif .tiff, in sub-folders too; hidden files left out) are zipped into a temporary file with
// yazl, stored as they are (images are compressed already), and that ZIP is what is uploaded.
import { createWriteStream } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { pipeline } from 'node:stream/promises';
import yazl from 'yazl';
import { CliError, EXIT } from './cliErrors.ts';

const IMAGE = /\.(jpe?g|png|webp|tiff?)$/i;

/**
 * The images under `dir`, by their paths relative to `root` (walked by hand: readdir's
 * `recursive` and `parentPath` are not in every Node 20 the client runs on).
 */
const imagesUnder = async (dir: string, root = dir): Promise<string[]> => {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await imagesUnder(path, root)));
    else if (entry.isFile() && IMAGE.test(entry.name)) found.push(relative(root, path));
  }
  return found;
};

/** Zips the folder's images; the ZIP's path and name, and how to remove it once sent. */
export const zipFolder = async (dir: string) => {
  const images = await imagesUnder(dir);
  if (images.length === 0) {
    throw new CliError(EXIT.usage, `${dir} holds no images (JPEG, PNG, WebP, TIFF) to publish`);
  }
  const folder = await mkdtemp(join(tmpdir(), 'flipbook-folder-'));
  const path = join(folder, `${basename(dir) || 'images'}.zip`);
  const zip = new yazl.ZipFile();
  for (const image of images) zip.addFile(join(dir, image), image, { compress: false });
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(path));
  return {
    path,
    name: basename(path),
    size: (await stat(path)).size,
    cleanup: () => rm(folder, { recursive: true, force: true }),
  };
};
