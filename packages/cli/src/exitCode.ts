// How a command's failure becomes its exit code (docs/ci.md): usage errors 2, the command's own
// CliError its code, anything else 1 with its message on stderr. `more` lets the server's
// `flipbook` add its own error kinds (a store that cannot start, a broken rule).
import { CommanderError } from 'commander';
import { CliError } from './client/cliErrors.ts';

export const exitCodeOf = (error: unknown, more: (error: unknown) => number | null = () => null) => {
  if (error instanceof CommanderError) {
    // --help and --version end here too, with exit code 0.
    return error.exitCode === 0 ? 0 : 2;
  }
  if (error instanceof CliError) {
    process.stderr.write(`flipbook: ${error.message}\n`);
    return error.exitCode;
  }
  const code = more(error);
  if (code !== null) {
    process.stderr.write(`flipbook: ${(error as Error).message}\n`);
    return code;
  }
  process.stderr.write(`flipbook: ${(error as Error)?.stack ?? String(error)}\n`);
  return 1;
};

/** `flipbook list | head`: the reader went away; that is the end of the output, not a crash. */
export const endQuietlyOnClosedStdout = () => {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  });
};
