import { InvalidInput } from './errors.ts';

const TRUE = ['true', '1', 'yes', 'on'];
const FALSE = ['false', '0', 'no', 'off'];
/** Every accepted spelling (the OpenAPI document lists them as the field's enum). */
export const ACTIVATE_SPELLINGS = [...TRUE, ...FALSE] as const;

/** The `activate` form field: true/false/1/0/yes/no/on/off in any case; absent means true. */
export const parseActivateFlag = (value: string | undefined): boolean => {
  if (value === undefined) return true;
  const word = value.trim().toLowerCase();
  if (TRUE.includes(word)) return true;
  if (FALSE.includes(word)) return false;
  throw new InvalidInput('Invalid activate: use true/false, 1/0, yes/no or on/off');
};
