// The `flipbook` commander program: every command, errors mapped to exit codes (0 success,
// 1 failure with a message on stderr, 2 usage error; the publishing commands add 3, 4 and 130).
// Loaded by main.ts once the process title hides the command line.
import { Command, CommanderError } from 'commander';
import { AppError, InvalidInput } from '../domain/errors.ts';
import { StoreError } from '../store/storeError.ts';
import { CliError } from './client/cliErrors.ts';
import { registerAudit } from './commands/audit.ts';
import { registerBlobs } from './commands/blobs.ts';
import { registerDownload } from './commands/download.ts';
import { registerEvents } from './commands/events.ts';
import { registerKey } from './commands/key.ts';
import { registerList } from './commands/list.ts';
import { registerLogin } from './commands/login.ts';
import { registerManage } from './commands/manage.ts';
import { registerPublish } from './commands/publish.ts';
import { registerReplay } from './commands/replay.ts';
import { registerServe } from './commands/serve.ts';
import { registerShow } from './commands/show.ts';
import { registerStatus } from './commands/status.ts';
import { registerUser } from './commands/user.ts';
import { registerVersion } from './commands/version.ts';
import { registerWebhook } from './commands/webhook.ts';
import { registerWorker } from './commands/worker.ts';
import { registerWorkspace } from './commands/workspace.ts';

const program = new Command('flipbook')
  .description('Self-hosted flipbook publishing: PDF in, page-flipping reader out')
  .version('0.1.0')
  .exitOverride()
  .showHelpAfterError();

registerPublish(program);
registerVersion(program);
registerStatus(program);
registerList(program);
registerShow(program);
registerManage(program);
registerLogin(program);
registerServe(program);
registerUser(program);
registerWorkspace(program);
registerKey(program);
registerEvents(program);
registerReplay(program);
registerWebhook(program);
registerWorker(program);
registerBlobs(program);
registerDownload(program);
registerAudit(program);

// `flipbook list | head`: the reader went away; that is the end of the output, not a crash.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
});

const main = async () => {
  try {
    await program.parseAsync(process.argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here too, with exit code 0.
      return error.exitCode === 0 ? 0 : 2;
    }
    if (error instanceof CliError) {
      process.stderr.write(`flipbook: ${error.message}\n`);
      return error.exitCode;
    }
    if (error instanceof InvalidInput) {
      process.stderr.write(`flipbook: ${error.message}\n`);
      return 2;
    }
    if (error instanceof AppError || error instanceof StoreError) {
      process.stderr.write(`flipbook: ${error.message}\n`);
      return 1;
    }
    process.stderr.write(`flipbook: ${(error as Error)?.stack ?? String(error)}\n`);
    return 1;
  }
};

process.exitCode = await main();
