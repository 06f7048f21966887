import { DIRECTIONS, type DirectionChoice } from '../../../src/domain/flipbookFields.ts';
import { CliError, EXIT } from './client/cliErrors.ts';

/** `--direction`: ltr, rtl or auto, or a usage error (exit 2) before anything is sent. */
export const flagDirection = (text: string): DirectionChoice => {
  const value = DIRECTIONS.find((d) => d === text.trim().toLowerCase());
  if (!value) throw new CliError(EXIT.usage, `--direction must be ltr, rtl or auto, got "${text}"`);
  return value;
};
