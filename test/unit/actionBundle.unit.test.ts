// The GitHub Action runs its committed bundle (packages/action/dist/index.mjs) as it is: no
// install, no build on the runner. So the committed file must be what build.ts makes of the
// sources now; a change to the action or to a client module it bundles, without
// `node packages/action/build.ts`, fails here.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleAction, DIST } from '../../packages/action/build.ts';
import { ROOT } from '../support/cli.ts';

describe('the GitHub Action bundle', () => {
  it('is committed as build.ts makes it now (run `node packages/action/build.ts`)', async () => {
    const built = await bundleAction();
    const committed = await readFile(DIST, 'utf8').catch(() => '');
    // Not toBe: a 700 KB diff would bury the one line that says what to do.
    expect(built === committed, 'packages/action/dist/index.mjs is stale').toBe(true);
  });

  it('builds the same bytes twice', async () => {
    expect(await bundleAction()).toBe(await bundleAction());
  });

  it('runs what action.yml names, on Node 20, with the inputs the code reads', async () => {
    const yml = await readFile(join(ROOT, 'packages/action/action.yml'), 'utf8');
    expect(yml).toMatch(/^runs:\n {2}using: node20\n {2}main: dist\/index\.mjs$/m);
    for (const input of ['url', 'api-key', 'file', 'slug', 'github-token', 'timeout']) {
      expect(yml).toMatch(new RegExp(`^ {2}${input}:$`, 'm'));
    }
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the workflow expression, as written
    expect(yml).toContain('default: ${{ github.token }}');
    for (const output of ['url', 'preview-url', 'changed-pages']) {
      expect(yml).toMatch(new RegExp(`^ {2}${output}:$`, 'm'));
    }
    const code = await readFile(DIST, 'utf8');
    for (const name of ['url', 'preview-url', 'changed-pages']) {
      expect(code).toContain(`setOutput("${name}"`);
    }
  });

  it("docs/ci.md's workflow gives the inputs action.yml has and the permissions it needs", async () => {
    const yml = await readFile(join(ROOT, 'packages/action/action.yml'), 'utf8');
    const doc = await readFile(join(ROOT, 'docs/ci.md'), 'utf8');
    const section = doc.slice(doc.indexOf('### GitHub: the pull-request action'));
    const workflow = /```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    expect(workflow).toContain('types: [opened, synchronize, reopened, closed]');
    expect(workflow).toMatch(/pull-requests: write/);
    expect(workflow).toMatch(/statuses: write/);
    expect(workflow).toMatch(/uses: [\w-]+\/flipbook\/packages\/action@main/);
    const given = [
      ...(/with:\n((?: {10}.*\n)+)/.exec(workflow)?.[1] ?? '').matchAll(/^ {10}([\w-]+):/gm),
    ];
    expect(given.map((m) => m[1])).toEqual(['url', 'api-key', 'file', 'slug']);
    for (const [, input] of given) expect(yml).toMatch(new RegExp(`^ {2}${input}:$`, 'm'));
  });
});
