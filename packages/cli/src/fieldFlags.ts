// Flags that carry a flipbook field, checked by the server's own rules before anything is sent.
import { VISIBILITIES, type Visibility } from '../../../src/domain/flipbook/access.ts';
import { DIRECTIONS, type DirectionChoice, slug } from '../../../src/domain/flipbookFields.ts';
import { CliError, EXIT } from './client/cliErrors.ts';

/** `--direction`: ltr, rtl or auto, or a usage error (exit 2) before anything is sent. */
export const flagDirection = (text: string): DirectionChoice => {
  const value = DIRECTIONS.find((d) => d === text.trim().toLowerCase());
  if (!value) throw new CliError(EXIT.usage, `--direction must be ltr, rtl or auto, got "${text}"`);
  return value;
};

/** `--slug`: the server's own rule, checked before anything is sent (exit 2 when it is not one). */
export const flagSlug = (text: string): string => {
  try {
    return slug(text);
  } catch (error) {
    throw new CliError(EXIT.usage, `--slug: ${(error as Error).message}`);
  }
};

/** `--visibility`: public, workspace or links, or a usage error (exit 2) before anything is sent. */
export const flagVisibility = (text: string): Visibility => {
  const value = VISIBILITIES.find((v) => v === text.trim().toLowerCase());
  if (!value) {
    throw new CliError(
      EXIT.usage,
      `--visibility must be ${VISIBILITIES.join(', ')}, got "${text}"`,
    );
  }
  return value;
};
