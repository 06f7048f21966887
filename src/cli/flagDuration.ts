import { CliError, EXIT } from '../../packages/cli/src/client/cliErrors.ts';

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const MAX_MS = 3650 * UNIT_MS.d;

/**
 * A duration flag: `0`, or whole minutes, hours or days (`30m`, `1h`, `24h`, `7d`, `90d`), in
 * milliseconds; anything else is a usage error (exit 2) that names the flag.
 */
export const flagDuration = (flag: string, text: string): number => {
  const match = /^(\d{1,7})([mhd])?$/.exec(text.trim().toLowerCase());
  const [, amount, unit] = match ?? [];
  const ms =
    amount === undefined || (unit === undefined && amount !== '0')
      ? Number.NaN
      : Number(amount) * (unit ? UNIT_MS[unit as keyof typeof UNIT_MS] : 0);
  if (!(ms >= 0 && ms <= MAX_MS)) {
    throw new CliError(
      EXIT.usage,
      `${flag} must be 0 or a number of minutes, hours or days (30m, 1h, 24h, 7d), got "${text}"`,
    );
  }
  return ms;
};
