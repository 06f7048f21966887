// The data folder's mount, read from /proc/self/mountinfo lines as a container shows them.
import { describe, expect, it } from 'vitest';
import { dataVolumeWarning, onOwnMount } from '../../src/dataVolume.ts';

const ROOT_ONLY = [
  '1200 1100 0:120 / / rw,relatime - overlay overlay rw,lowerdir=/l,upperdir=/u,workdir=/w',
  '1201 1200 0:121 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw',
  '1202 1200 0:122 / /dev rw,nosuid - tmpfs tmpfs rw,size=65536k,mode=755',
].join('\n');
const WITH_VOLUME = `${ROOT_ONLY}\n1210 1200 8:1 /var/lib/containers/storage/volumes/flipbook-data/_data /data rw,relatime - ext4 /dev/sda1 rw`;

describe('the data folder and its mount', () => {
  it('is on its own mount when a volume is mounted there or on a parent, never by the root alone', () => {
    expect(onOwnMount(ROOT_ONLY, '/data')).toBe(false);
    expect(onOwnMount(WITH_VOLUME, '/data')).toBe(true);
    expect(onOwnMount(WITH_VOLUME, '/data/pg')).toBe(true);
    expect(onOwnMount(WITH_VOLUME, '/database')).toBe(false); // a prefix is not a parent
    expect(
      onOwnMount(
        `${ROOT_ONLY}\n9 1200 8:1 / /srv/my\\040data rw - ext4 /dev/sda1 rw`,
        '/srv/my data',
      ),
    ).toBe(true);
  });

  it('warns only in the image, and only when something is kept there', async () => {
    expect(await dataVolumeWarning('/nowhere/data', true, {})).toBeNull();
    expect(await dataVolumeWarning('/nowhere/data', false, { FLIPBOOK_CONTAINER: '1' })).toBeNull();
    // This machine's own /proc: a folder under / on no mount of its own is warned about.
    const warning = await dataVolumeWarning('/nowhere/data', true, { FLIPBOOK_CONTAINER: '1' });
    const mounts = (await import('node:fs')).readFileSync('/proc/self/mountinfo', 'utf8');
    if (onOwnMount(mounts, '/nowhere/data')) expect(warning).toBeNull();
    else
      expect(warning).toMatch(
        /^\/nowhere\/data is not a volume: .* -v flipbook-data:\/nowhere\/data/,
      );
  });
});
