import type { Command } from 'commander';
import { resolveConnection, saveConnection } from '../client/config.ts';

export const registerLogin = (program: Command) => {
  program
    .command('login')
    .description('save the server URL and API key for later commands (file mode 0600)')
    .option('--url <url>', 'server URL (default: $FLIPBOOK_URL)')
    .option('--api-key <key>', 'API key (default: $FLIPBOOK_API_KEY)')
    .action(async (flags: { url?: string; apiKey?: string }) => {
      const connection = await resolveConnection(flags);
      const file = await saveConnection(connection);
      process.stdout.write(`saved to ${file}\n`);
    });
};
