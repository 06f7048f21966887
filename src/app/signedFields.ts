// Short texts the service signs and later believes: dot-separated fields and an HMAC-SHA256 of
// them (128 bits, base64url) under the installation's secret. Reading grants (./readerAccess.ts)
// and reading tokens (./analytics/readingTokens.ts) are made with it; each kind's first field
// is a letter of its own, so that no text signed as one kind reads as another.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const signedFields = (secret: string) => {
  const mac = (payload: string) =>
    createHmac('sha256', secret).update(payload).digest('base64url').slice(0, 22);
  return {
    sign: (fields: (string | number)[]) => {
      const payload = fields.join('.');
      return `${payload}.${mac(payload)}`;
    },
    /** The fields of a text signed here (at most `maxLength` long), or null. */
    open: (text: string, maxLength: number): string[] | null => {
      if (text.length > maxLength) return null;
      const fields = text.split('.');
      const signature = fields.pop() ?? '';
      const expected = Buffer.from(mac(fields.join('.')));
      const given = Buffer.from(signature);
      return given.length === expected.length && timingSafeEqual(given, expected) ? fields : null;
    },
  };
};
