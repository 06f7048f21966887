// The OpenAPI document describes the version upload's `activate` field as an enum: it must list
// the spellings src/domain/activateFlag.ts accepts, so a client validating against it is not lied to.
import { describe, expect, it } from 'vitest';
import { CreateVersionFields } from '../../src/contract/versions.ts';
import { parseActivateFlag } from '../../src/domain/activateFlag.ts';
import { InvalidInput } from '../../src/domain/errors.ts';

describe('the OpenAPI enum of activate spellings', () => {
  it('lists exactly what the server accepts: each parses, to true and to false, and no other', () => {
    const spellings = (CreateVersionFields.properties.activate as unknown as { enum: string[] })
      .enum;
    const parsed = spellings.map((word) => parseActivateFlag(word));
    expect(parsed.filter((value) => value)).toHaveLength(4);
    expect(parsed.filter((value) => !value)).toHaveLength(4);
    for (const word of ['truthy', 'y', 'n', '2', 'enabled', '']) {
      expect(() => parseActivateFlag(word)).toThrow(InvalidInput);
    }
  });
});
