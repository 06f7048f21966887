// A daemon for a benchmark: a fresh embedded store in a temporary folder with a Team workspace
// and its API key, `flipbook serve` on a free port with the given flags (the defaults a user
// gets, but the rate limit, off: a benchmark is one client sending thousands of requests), and
// its log kept.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const FLIPBOOK = join(resolve(import.meta.dirname, '..'), 'bin/flipbook');

export const startBenchDaemon = async (name: string, flags: string[] = []) => {
  const dataDir = mkdtempSync(join(tmpdir(), `bench-${name}-`));
  const admin = (args: string[]) =>
    execFileSync(FLIPBOOK, [...args, '--data-dir', dataDir], { encoding: 'utf8' });
  admin(['workspace', 'create', 'bench', '--plan', 'team']);
  const key = JSON.parse(admin(['key', 'create', '--workspace', 'bench', '--json'])).key as string;
  const daemon = spawn(
    FLIPBOOK,
    ['serve', '--port', '0', '--data-dir', dataDir, '--rate-limit', '0', ...flags],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let output = '';
  const url = await new Promise<string>((resolveUrl, fail) => {
    daemon.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /"publicUrl":"([^"]+)"[^\n]*flipbook ready/.exec(output);
      if (ready?.[1]) resolveUrl(ready[1]);
    });
    daemon.once('exit', () => fail(new Error(`daemon exited:\n${output}`)));
  });
  /** its log so far (JSON lines): a benchmark reads what the daemon says it did */
  const logs = () => output;
  return { dataDir, key, daemon, url, logs };
};

/**
 * Publishes a file on a bench daemon (as `name`, with `visibility` when given) and waits until it
 * is processed: the flipbook's and version's ids and its page count. A failed version throws.
 */
export const publishAndWait = async (
  url: string,
  key: string,
  bytes: Buffer,
  visibility?: string,
  options: { name?: string; pollMs?: number } = {},
): Promise<{ flipbook_id: string; version_id: string; pages: number }> => {
  const api = `${url}/api/v1`;
  const auth = { authorization: `Bearer ${key}` };
  const form = new FormData();
  if (visibility) form.append('visibility', visibility);
  form.append('file', new Blob([bytes]), options.name ?? 'bench.pdf');
  const made = (await (
    await fetch(`${api}/flipbooks`, { method: 'POST', headers: auth, body: form })
  ).json()) as { flipbook_id: string; version_id: string };
  for (;;) {
    const status = (await (
      await fetch(`${api}/flipbooks/${made.flipbook_id}/versions/${made.version_id}/status`, {
        headers: auth,
      })
    ).json()) as { status: string; pages: number; error_reason?: string };
    if (status.status === 'error') throw new Error(`${options.name}: ${status.error_reason}`);
    if (status.status === 'done') return { ...made, pages: status.pages };
    await new Promise((r) => setTimeout(r, options.pollMs ?? 100));
  }
};
