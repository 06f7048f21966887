// Alternative text for a page image: its own words, shortened. The server makes the first
// pages' the same way (src/reader/readerPage.ts), the script the others' once the text is here.
export const altText = (label, text) => {
  const words = text.replace(/\s+/g, ' ').trim();
  const excerpt = words.length > 180 ? `${words.slice(0, 180).replace(/\s+\S*$/, '')}…` : words;
  return excerpt ? `Page ${label}: ${excerpt}` : `Page ${label}`;
};
