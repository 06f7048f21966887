// The operator's contact in the OpenAPI document (flipbook serve --contact-email): checked as an
// address before the daemon starts, and served as info.contact; without it, no contact at all.
import { describe, expect, it } from 'vitest';
import { flagEmail } from '../../src/cli/commands/serve.ts';
import { documentFor, openApiDocument } from '../../src/http/api.ts';

describe('the API document’s contact', () => {
  it('--contact-email takes an address, and refuses anything else in words (exit 2)', () => {
    expect(flagEmail(' ops@flipbooks.example.com ')).toBe('ops@flipbooks.example.com');
    for (const wrong of ['ops', 'ops@localhost', 'two words@example.com', '']) {
      expect(() => flagEmail(wrong)).toThrow(
        expect.objectContaining({
          exitCode: 2,
          message: `--contact-email must be an email address (ops@example.com), got "${wrong}"`,
        }),
      );
    }
  });

  it('is info.contact when given; the document is otherwise the same', () => {
    const served = documentFor('ops@flipbooks.example.com');
    expect(served.info.contact).toEqual({ email: 'ops@flipbooks.example.com' });
    expect({ ...served, info: { ...served.info, contact: undefined } }).toEqual({
      ...openApiDocument,
      info: { ...openApiDocument.info, contact: undefined },
    });
    expect(documentFor(null)).toBe(openApiDocument);
    expect(documentFor(null).info).not.toHaveProperty('contact');
  });
});
