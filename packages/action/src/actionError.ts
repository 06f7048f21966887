// An error the action says in words and fails the step with: never a stack trace in a job log.
import { ApiError, CliError } from '../../cli/src/client/cliErrors.ts';

export class ActionError extends Error {
  override name = 'ActionError';
}

/** What the step's failure says: the answer's status and words, for the server's and GitHub's. */
export const failureWords = (error: unknown): string => {
  if (error instanceof ApiError && error.status > 0) {
    return `The flipbook server answered ${error.status}: ${error.message}`;
  }
  if (error instanceof CliError || error instanceof ActionError) return error.message;
  // Something unforeseen: its message alone (the stack is for `ACTIONS_STEP_DEBUG`).
  return error instanceof Error ? error.message : String(error);
};
