import { CliError, EXIT } from '../../packages/cli/src/client/cliErrors.ts';

/** An integer flag within bounds, or a usage error (exit 2) that names the flag. */
export const flagInteger = (flag: string, text: string, min: number, max: number) => {
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= min && value <= max)) {
    throw new CliError(
      EXIT.usage,
      `${flag} must be an integer from ${min} to ${max}, got "${text}"`,
    );
  }
  return value;
};
