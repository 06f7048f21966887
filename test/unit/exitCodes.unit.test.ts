// docs/ci.md's exit table is the CLI's: every code it lists is one the commands use, and the
// other way round (each code's behaviour is asserted in test/e2e/publishCli.e2e.test.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../packages/cli/src/client/cliErrors.ts';

const ROOT = join(import.meta.dirname, '../..');

describe('exit codes', () => {
  it('docs/ci.md lists exactly the codes the CLI uses', () => {
    const doc = readFileSync(join(ROOT, 'docs/ci.md'), 'utf8');
    const table = doc.slice(doc.indexOf('## Exit codes'));
    const listed = [...table.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
    expect(listed.sort((a, b) => a - b)).toEqual(Object.values(EXIT).sort((a, b) => a - b));
  });
});
