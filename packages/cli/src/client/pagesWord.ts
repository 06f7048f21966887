/** "1 page", "3 pages": a count of pages in words. */
export const pagesWord = (pages: number) => `${pages} page${pages === 1 ? '' : 's'}`;
