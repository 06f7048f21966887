import type { Command } from 'commander';
import { runDaemon } from '../../daemon.ts';
import { type StoreFlags, withStoreOptions } from '../storeOptions.ts';

export const registerServe = (program: Command) => {
  withStoreOptions(
    program
      .command('serve')
      .description('run the flipbook daemon (HTTP API, reader, processing)')
      .option('--port <port>', 'TCP port', '8080')
      .option('--host <host>', 'address to listen on', '127.0.0.1')
      .option('--public-url <url>', 'base of every absolute URL the API returns'),
  ).action(async (flags: StoreFlags & { port: string; host: string; publicUrl?: string }) => {
    const port = Number(flags.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new UsageError(`--port must be an integer from 0 to 65535, got "${flags.port}"`);
    }
    await runDaemon({ ...flags, port });
  });
};

export class UsageError extends Error {
  override name = 'UsageError';
}
