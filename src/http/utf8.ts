// Bodies read as text are read as strict UTF-8: bytes that are not UTF-8 are refused in words
// by the caller, never kept as U+FFFD in what is stored (JSON is UTF-8: RFC 8259).

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The bytes as text, or null when they are not UTF-8. */
export const utf8Text = (bytes: Uint8Array): string | null => {
  try {
    return UTF8.decode(bytes);
  } catch {
    return null;
  }
};

/** What a refusal of such a body says after its first words. */
export const NOT_UTF8 = 'it is not UTF-8 (JSON and forms are sent in UTF-8)';
