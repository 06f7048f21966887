// The CLI's --direction as a user runs it, against a real daemon: publish and edit with it, and
// a wrong value a usage error before anything is sent. The direction's rules over HTTP and in
// the reader's columns are test/spec/direction.spec.test.ts's, in process.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findReaderFlipbook } from '../../src/queries/reader.ts';
import type { Store } from '../../src/store/store.ts';
import { openStoreOf, SMALL_PDF } from '../support/apiHelpers.ts';
import { flipbook } from '../support/cli.ts';
import { CORPUS } from '../support/corpus.ts';
import { useApi } from '../support/useApi.ts';

describe('the reading direction from the CLI', () => {
  const fx = useApi('embedded', ['--rate-limit', '0']);
  let store: Store;
  let cliHome: string;

  const cli = (args: string[]) =>
    flipbook(args, {
      XDG_CONFIG_HOME: cliHome,
      FLIPBOOK_URL: fx.daemon.url,
      FLIPBOOK_API_KEY: fx.key,
    });

  beforeAll(async () => {
    cliHome = await mkdtemp(join(tmpdir(), 'flipbook-direction-cli-'));
    store = await openStoreOf(fx.storeArgs);
  });
  afterAll(async () => {
    await store?.close();
    await rm(cliHome, { recursive: true, force: true });
  });

  it('publishes and edits with the CLI’s --direction', async () => {
    let run = await cli(['publish', join(CORPUS, SMALL_PDF), '--direction', 'rtl', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const id = JSON.parse(run.stdout).flipbook_id as string;
    expect((await fx.c.flipbook(id)).body.direction).toBe('rtl');
    expect(await findReaderFlipbook(store.db, id)).toMatchObject({
      title: SMALL_PDF,
      title_from_file: true,
    });

    run = await cli(['edit', id, '--direction', 'auto', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).direction).toBe('auto');

    // a wrong value is a usage error, before anything is sent
    run = await cli(['edit', id, '--direction', 'down']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--direction must be ltr, rtl or auto/);
    run = await cli(['publish', join(CORPUS, SMALL_PDF), '--direction', 'down']);
    expect(run.code).toBe(2);
    expect((await fx.c.flipbook(id)).body.direction).toBe('auto');
  });
});
