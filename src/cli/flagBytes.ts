import { CliError, EXIT } from '../../packages/cli/src/client/cliErrors.ts';

const UNITS: Record<string, number> = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };

/**
 * A size flag: bytes, or a number with K, M, G or T (powers of 1024; `2G`, `512M`, `1.5G`), up
 * to `max` bytes; else a usage error (exit 2) that names the flag.
 */
export const flagBytes = (flag: string, text: string, max: number) => {
  const match = /^(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?$/i.exec(text.trim());
  const bytes = match
    ? Math.round(Number(match[1]) * (UNITS[(match[2] ?? '').toUpperCase()] ?? 1))
    : Number.NaN;
  if (!(bytes >= 0 && bytes <= max)) {
    throw new CliError(
      EXIT.usage,
      `${flag} must be a size such as 2G, 500M or a number of bytes (at most ${max}), got "${text}"`,
    );
  }
  return bytes;
};
