// Alternative text for a page image: its own words, shortened. The server makes the first
// pages' the same way (src/reader/readerPage.ts), the script the others' once the text is here.
export const altText = (label: string, text: string): string => {
  const words = text.replace(/\s+/g, ' ').trim();
  const excerpt = words.length > 180 ? `${words.slice(0, 180).replace(/\s+\S*$/, '')}…` : words;
  return excerpt ? `Page ${label}: ${excerpt}` : `Page ${label}`;
};

/**
 * Text from the PDF without text-direction controls (U+202A-E, U+2066-9, U+200E/F): an outline
 * entry or a link named "‮txt.exe" must not read backwards to spoof another name.
 */
export const plainText = (text: string | null | undefined): string =>
  String(text ?? '').replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '');
