// Whether what the daemon keeps in its data folder survives its container. The image declares
// no VOLUME (one started with DATABASE_URL and a bucket keeps nothing there, and got an anonymous
// volume it never used); so an image run without `-v something:/data` would keep the embedded
// database in the container's own layer, lost with the container. The daemon says so at start.
import { readFile, realpath } from 'node:fs/promises';

/**
 * Whether `path` is on a mount of its own (a volume or a bind mount) rather than the container's
 * root filesystem, from /proc/self/mountinfo's text: some mount point other than `/` is `path`
 * or one of its parents. Mount points there escape spaces and such as octal (`\040`).
 */
export const onOwnMount = (mountinfo: string, path: string): boolean => {
  const unescaped = (field: string) =>
    field.replace(/\\([0-7]{3})/g, (_, octal: string) =>
      String.fromCharCode(Number.parseInt(octal, 8)),
    );
  return mountinfo.split('\n').some((line) => {
    const point = line.split(' ')[4];
    if (!point || point === '/') return false;
    const mount = unescaped(point);
    return path === mount || path.startsWith(`${mount}/`);
  });
};

/**
 * The warning to log, or null: only in the image (FLIPBOOK_CONTAINER is set there), only when
 * something is kept in the folder (the embedded database or the page files), only when the folder
 * is not mounted.
 */
export const dataVolumeWarning = async (
  dataDir: string,
  keepsData: boolean,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | null> => {
  if (!env.FLIPBOOK_CONTAINER || !keepsData) return null;
  const mountinfo = await readFile('/proc/self/mountinfo', 'utf8').catch(() => null);
  if (mountinfo === null) return null;
  const path = await realpath(dataDir).catch(() => dataDir);
  if (onOwnMount(mountinfo, path)) return null;
  return `${path} is not a volume: the database and files kept there go with this container; run it with -v flipbook-data:${path} (compose.yaml does)`;
};
