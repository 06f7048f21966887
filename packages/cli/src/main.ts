// The client package's `flipbook`: the publishing commands only, on Node 20 and later, with
// nothing of the server (no database, poppler, sharp or bucket SDK). The API key may be on the
// command line (--api-key): the process title hides it from `ps` before anything else runs.
process.title = 'flipbook';

import { setFlagsFromString } from 'node:v8';
// undici parses HTTP with a WebAssembly module; V8 would optimise it on background threads that
// the process then waits for at exit (~120 ms here), for a command that makes a request or two.
// The baseline compiler alone is plenty for that.
setFlagsFromString('--liftoff-only');

import { Command } from 'commander';
import { closeConnections } from './client/apiClient.ts';
import { registerClientCommands } from './commands/index.ts';
import { endQuietlyOnClosedStdout, exitCodeOf } from './exitCode.ts';
import { CLIENT_VERSION } from './version.ts';

const program = new Command('flipbook')
  .description('Publish PDFs as page-flipping flipbooks on a flipbook server')
  .version(CLIENT_VERSION)
  .exitOverride()
  .showHelpAfterError();
registerClientCommands(program);
endQuietlyOnClosedStdout();

try {
  await program.parseAsync(process.argv);
  process.exitCode = 0;
} catch (error) {
  process.exitCode = exitCodeOf(error);
} finally {
  await closeConnections();
}
