// What a beacon adds to an identified reader's own figures (issue 44): the reader gave their
// address at a link that asks who reads, and was told what it records, so their reading is
// counted for them apart from the anonymous figures (which stay as they are: cookieless, and
// not counted for a browser that sends Do Not Track). Only a token the server signed for that
// reader says whose reading it is (./readingTokens.ts), never the beacon's body.
import { type Beacon, MAX_PAGE_SECONDS } from '../../domain/analytics/beacon.ts';
import type { Db } from '../../readTables/readTable.ts';
import { addReaderReading, type ReaderReading } from '../../state/linkReaders.ts';
import type { ReadingToken } from './readingTokens.ts';

/** The reading a beacon tells of, within the token's pages; null when it tells of none. */
export const readingOfBeacon = (beacon: Beacon, pages: number): ReaderReading | null => {
  const reading: ReaderReading = { seconds: 0, pages: [], lastPage: null, downloads: 0 };
  let left = MAX_PAGE_SECONDS;
  for (const event of beacon.events) {
    if (event.kind !== 'page' || event.position > pages || event.seconds <= 0) continue;
    if (!event.beside) {
      const seconds = Math.min(event.seconds, left);
      left -= seconds;
      reading.seconds += seconds;
    }
    if (event.seconds >= 1 && !reading.pages.includes(event.position)) {
      reading.pages.push(event.position);
    }
    reading.lastPage = event.position;
  }
  // (Downloads are counted where the file is sent, src/http/files.ts, not as the page says.)
  return reading.seconds > 0 || reading.pages.length > 0 ? reading : null;
};

/** Adds a beacon's reading to its reader's figures (a token of no reader: nothing). */
export const countReaderReading = async (
  db: Db,
  token: ReadingToken,
  beacon: Beacon,
  now: Date,
) => {
  if (!token.readerId) return;
  const reading = readingOfBeacon(beacon, token.pages);
  if (reading) await addReaderReading(db, token.readerId, reading, now);
};
