import { describe, expect, it } from 'vitest';
import { parsePageWords } from '../../src/pdf/pageWords.ts';

describe('parsePageWords', () => {
  it('gives each word its box as fractions of the page, entities undone, each line’s words as read', () => {
    // -bbox-layout: lines of words, each as it stands, left to right
    const xhtml = `<doc><page width="200.000000" height="100.000000">
<line xMin="20" yMin="10" xMax="60" yMax="20">
<word xMin="20.000000" yMin="10.000000" xMax="60.000000" yMax="20.000000">A&amp;B</word>
</line>
<line xMin="60" yMin="50" xMax="150" yMax="60">
<word xMin="60.0" yMin="50.0" xMax="95.0" yMax="60.0">ملاعلاب</word>
<word xMin="100.0" yMin="50.0" xMax="150.0" yMax="60.0">يبيبحَ</word>
</line>
<word xMin="1" yMin="1" xMax="2" yMax="2">   </word>
</page></doc>`;
    expect(parsePageWords(xhtml)).toEqual([
      { x: 0.1, y: 0.1, w: 0.2, h: 0.1, t: 'A&B' },
      { x: 0.5, y: 0.5, w: 0.25, h: 0.1, t: 'حَبيبي' },
      { x: 0.3, y: 0.5, w: 0.175, h: 0.1, t: 'بالعالم' },
    ]);
  });

  it('swaps the page’s width and height for a page turned a quarter (/Rotate 90 or 270)', () => {
    const xhtml = `<page width="595.275591" height="841.889764">
<word xMin="765.909093" yMin="118.995" xMax="779.193093" yMax="125.343">x</word></page>`;
    const [word] = parsePageWords(xhtml, 90);
    expect(word?.x).toBeCloseTo(765.909093 / 841.889764, 4);
    expect(word?.y).toBeCloseTo(118.995 / 595.275591, 4);
    expect((word?.x ?? 2) + (word?.w ?? 0)).toBeLessThanOrEqual(1);
  });

  it('gives nothing for output without a page size', () => {
    expect(parsePageWords('<doc></doc>')).toEqual([]);
    expect(
      parsePageWords(
        '<page width="0" height="0"><word xMin="1" yMin="1" xMax="2" yMax="2">a</word></page>',
      ),
    ).toEqual([]);
  });
});
