// The reader's part of images that stand in (src/reader/client/upgrade.ts): how it tells a
// stand-in from the real tile or image, and that it asks again a bounded number of times, each
// later than the last, then stops. And the render slots' 'tile' priority: below every upload's
// pages, given back as soon as one of them waits.
import { describe, expect, it } from 'vitest';
import { RenderSlots } from '../../src/pdf/renderSlots.ts';
import {
  askedAgain,
  isStandInImage,
  isStandInTile,
  mayAsk,
  nextTry,
  RETRY_DELAYS_MS,
  type Tries,
} from '../../src/reader/client/upgrade.ts';

describe('asking again for what stood in', () => {
  it('asks again later each time, then stops for good', () => {
    let tries: Tries | null | undefined;
    let now = 0;
    const waits: number[] = [];
    expect(mayAsk(tries, now)).toBe(true);
    for (;;) {
      const next = nextTry(tries ?? undefined, now);
      if (!next) {
        tries = null;
        break;
      }
      waits.push(next.notBefore - now);
      expect(mayAsk(next, now)).toBe(false);
      expect(mayAsk(next, next.notBefore)).toBe(true);
      tries = next;
      now = next.notBefore;
    }
    expect(waits).toEqual([...RETRY_DELAYS_MS]);
    expect(waits.every((w, i) => i === 0 || w > (waits[i - 1] ?? 0))).toBe(true);
    // given up on: never asked again, whatever the time
    expect(mayAsk(tries, Number.MAX_SAFE_INTEGER)).toBe(false);
    // bounded: six asks in about a minute, not one a second for ever
    expect(waits.length).toBe(6);
    expect(waits.reduce((a, b) => a + b, 0)).toBeLessThan(70_000);
  });

  it('tells a stand-in from the real tile by its size', () => {
    expect(isStandInTile({ w: 1024, h: 1024 }, { w: 1024, h: 1024 })).toBe(false);
    expect(isStandInTile({ w: 643, h: 1024 }, { w: 643, h: 1024 })).toBe(false);
    // the whole page's largest image, sent in place of a tile
    expect(isStandInTile({ w: 1333, h: 2000 }, { w: 1024, h: 1024 })).toBe(true);
    expect(isStandInTile({ w: 1024, h: 1000 }, { w: 1024, h: 1024 })).toBe(true);
  });

  it('tells the 1000 px image standing in for the 2000 px one by its reported width', () => {
    // srcset by width: the browser reports pixels × sizes / the width the srcset says
    const sizes = 900;
    expect(isStandInImage((2000 * sizes) / 2000, sizes)).toBe(false);
    expect(isStandInImage((1000 * sizes) / 2000, sizes)).toBe(true);
    expect(isStandInImage(0, sizes)).toBe(false); // not loaded
    expect(isStandInImage(450, Number.NaN)).toBe(false); // no sizes to go by
  });

  it('asks under a new URL each time', () => {
    expect(askedAgain('/files/pages/v/1/tile-1-0-0.jpg', 2)).toBe(
      '/files/pages/v/1/tile-1-0-0.jpg?try=2',
    );
    expect(askedAgain('/x.jpg?a=1', 3)).toBe('/x.jpg?a=1&try=3');
  });
});

describe("the render slots' tile priority", () => {
  it('serves tiles after every upload page, and asks a tile back when an upload page waits', async () => {
    const slots = new RenderSlots({ capacity: 1, burst: 0 });
    const tiles = slots.job();
    const upload = slots.job();
    const tile = await tiles.acquire('tile');
    let stopped = false;
    tile.yieldWith(() => {
      stopped = true;
    });
    const page = upload.acquire('normal');
    await new Promise((r) => setImmediate(r));
    expect(stopped).toBe(true); // asked back at once
    const order: string[] = [];
    const laterTile = tiles.acquire('tile').then((s) => {
      order.push('tile');
      return s;
    });
    const fill = slots
      .job()
      .acquire('fill')
      .then((s) => {
        order.push('fill');
        return s;
      });
    tile.release();
    (await page).release();
    (await laterTile).release();
    (await fill).release();
    expect(order).toEqual(['tile', 'fill']); // a reader's tile before background fills
  });
});
