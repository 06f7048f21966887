// Alternative text for a page image: its name ("Page ii", in the reader's language), then its
// own words, shortened. The server makes the first
// pages' with this same function (src/reader/readerPage.ts), the script the others' once the
// text is here. A contents page's dot leaders ("Spring ........ 12") are not read aloud.
export const altText = (page: string, text: string): string => {
  const words = text.replace(LEADERS, ' ').replace(/\s+/g, ' ').trim();
  const excerpt = words.length > 180 ? `${words.slice(0, 180).replace(/\s+\S*$/, '')}…` : words;
  return excerpt ? `${page}: ${excerpt}` : page;
};

/** Three or more dots, middle dots, bullets, underscores or dashes in a row, spaced or not, or two ellipses. */
const LEADERS = /(?:[.\u00b7\u2022_\u2013\u2014-] ?){3,}|(?:\u2026 ?){2,}/g;

/**
 * Text from the PDF without text-direction controls (U+202A-E, U+2066-9, U+200E/F): an outline
 * entry or a link named "‮txt.exe" must not read backwards to spoof another name.
 */
export const plainText = (text: string | null | undefined): string =>
  String(text ?? '').replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '');
