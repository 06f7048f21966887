// PostgreSQL cannot store every string JavaScript can hold: text and jsonb refuse the NUL
// character (U+0000), and jsonb refuses an unpaired UTF-16 surrogate (JSON.stringify writes it as
// an escape such as \ud800, which jsonb rejects). Client text is checked here before it can reach
// the store, so such input is the client's 400, not our 500.
import { InvalidInput } from './errors.ts';

/** Returns `value` unchanged, or throws a 400 that names the field and the offending character. */
export const storableText = (field: string, value: string): string => {
  if (value.includes('\u0000'))
    throw new InvalidInput(`Invalid ${field}: it contains a NUL character`);
  if (!value.isWellFormed()) {
    throw new InvalidInput(`Invalid ${field}: it contains an unpaired UTF-16 surrogate`);
  }
  return value;
};
