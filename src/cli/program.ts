// The `flipbook` commander program: every command, errors mapped to exit codes (0 success,
// 1 failure with a message on stderr, 2 usage error; the publishing commands add 3, 4 and 130).
// Loaded by main.ts once the process title hides the command line.
import { Command } from 'commander';
import { closeConnections } from '../../packages/cli/src/client/apiClient.ts';
import { registerClientCommands } from '../../packages/cli/src/commands/index.ts';
import { endQuietlyOnClosedStdout, exitCodeOf } from '../../packages/cli/src/exitCode.ts';
import { CLIENT_VERSION } from '../../packages/cli/src/version.ts';
import { AppError, InvalidInput } from '../domain/errors.ts';
import { DATABASE_TOO_NEW_EXIT, DatabaseTooNew, StoreError } from '../store/storeError.ts';
import { isDatabaseUnavailable } from '../store/unavailable.ts';
import { registerAudit } from './commands/audit.ts';
import { registerBlobs } from './commands/blobs.ts';
import { registerDownload } from './commands/download.ts';
import { registerEvents } from './commands/events.ts';
import { registerKey } from './commands/key.ts';
import { registerReplay } from './commands/replay.ts';
import { registerServe } from './commands/serve.ts';
import { registerUser } from './commands/user.ts';
import { registerWorker } from './commands/worker.ts';
import { registerWorkspace } from './commands/workspace.ts';

const program = new Command('flipbook')
  .description('Self-hosted flipbook publishing: PDF in, page-flipping reader out')
  .version(CLIENT_VERSION)
  .exitOverride()
  .showHelpAfterError();

registerClientCommands(program, { events: false });
registerServe(program);
registerUser(program);
registerWorkspace(program);
registerKey(program);
registerEvents(program);
registerReplay(program);
registerWorker(program);
registerBlobs(program);
registerDownload(program);
registerAudit(program);
endQuietlyOnClosedStdout();

try {
  await program.parseAsync(process.argv);
  process.exitCode = 0;
} catch (error) {
  process.exitCode = exitCodeOf(
    // (a StoreError says which database and why already)
    isDatabaseUnavailable(error) && !(error instanceof StoreError)
      ? new StoreError(`the database is unavailable: ${(error as Error).message}`)
      : error,
    (e) =>
      e instanceof DatabaseTooNew
        ? DATABASE_TOO_NEW_EXIT
        : e instanceof InvalidInput
          ? 2
          : e instanceof AppError || e instanceof StoreError
            ? 1
            : null,
  );
} finally {
  await closeConnections();
}
