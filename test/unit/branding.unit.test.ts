// Reader branding's pure parts: colours as kept, the decision (no-ops, the logo kept or
// replaced), the stylesheet (accents made readable in either theme), and the logo made small
// from an upload by sharp (a real image library, in memory).
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { makeLogo } from '../../src/app/branding.ts';
import { colourOf, isLogo, LOGO_BYTES } from '../../src/domain/workspace/branding.ts';
import { setBranding } from '../../src/domain/workspace/decide.ts';
import { evolve, type Workspace } from '../../src/domain/workspace/workspace.ts';
import { brandStylesheet, contrast, readableOn } from '../../src/reader/brandStyle.ts';

const now = new Date('2026-11-28T12:00:00Z');
const created: Workspace = {
  status: 'created',
  workspaceId: 'w1',
  name: 'acme',
  plan: 'free',
  keys: {},
  invitations: {},
  members: {},
};
const logo = { type: 'image/webp' as const, width: 100, height: 40, data: 'UklGRg==' };

describe('branding', () => {
  it('keeps colours as #rrggbb, refusing anything else', () => {
    expect(colourOf('#1A6BD8')).toBe('#1a6bd8');
    expect(colourOf(' #abc ')).toBe('#aabbcc');
    for (const bad of ['red', '#12345', '#1234567', 'rgb(1,2,3)', '#ggg000', '']) {
      expect(colourOf(bad), bad).toBeNull();
    }
  });

  it('decides: colours checked, the same again is nothing, the logo kept unless replaced or removed', () => {
    const command = (data: object) => ({
      type: 'SetBranding' as const,
      data: { accent: null, background: null, now, ...data },
    });
    const [first] = setBranding(command({ accent: '#FFD400', logo }), created);
    expect(first?.data).toMatchObject({ accent: '#ffd400', background: null, logo });
    const state = evolve(created, first as never);
    expect(setBranding(command({ accent: '#ffd400' }), state)).toEqual([]); // logo absent: kept
    expect(setBranding(command({ accent: '#ffd400', logo }), state)).toEqual([]);
    const [removed] = setBranding(command({ accent: '#ffd400', logo: null }), state);
    expect(removed?.data).toMatchObject({ logo: null });
    const [colours] = setBranding(command({ background: '#0b3d2e' }), state);
    expect(colours?.data).not.toHaveProperty('logo');
    expect(evolve(state, colours as never)).toMatchObject({
      branding: { accent: null, background: '#0b3d2e', logo },
    });
    expect(() => setBranding(command({ accent: 'blue' }), state)).toThrow(
      /accent must be a colour/,
    );
    expect(() => setBranding(command({ logo: { ...logo, width: 4000 } }), state)).toThrow(/logo/);
    expect(() => setBranding(command({}), { status: 'none' })).toThrow(/not found/);
  });

  it('makes an accent readable in both themes, and marks readable on the background', () => {
    const pale = readableOn('#ffd400', '#e1e5eb', '#000000');
    expect(contrast(pale, '#e1e5eb')).toBeGreaterThanOrEqual(4.5);
    expect(readableOn('#ffd400', '#3a3f49', '#ffffff')).toBe('#ffd400'); // already readable
    const dark = readableOn('#0b1d6b', '#3a3f49', '#ffffff');
    expect(contrast(dark, '#3a3f49')).toBeGreaterThanOrEqual(4.5);
    const css = brandStylesheet({ accent: '#ffd400', background: '#0b3d2e' });
    expect(css).toContain(':root{--accent:#ffd400}');
    expect(css).toContain(`@media (prefers-color-scheme: light){:root{--accent:${pale}}}`);
    expect(css).toContain(':root{--bg:#0b3d2e;--on-bg:#e4e7ec}');
    // as light as paper: the pages keep an edge
    expect(brandStylesheet({ accent: null, background: '#fafafa' })).toBe(
      ':root{--bg:#fafafa;--on-bg:#2b2f36}\n' +
        '.page{box-shadow:0 0 0 1px rgba(0,0,0,.16),0 6px 24px var(--shadow)}\n',
    );
    expect(brandStylesheet({ accent: null, background: '#c8d0da' })).toBe(
      ':root{--bg:#c8d0da;--on-bg:#2b2f36}\n',
    );
  });

  it('makes a logo small from an upload, and refuses what is not an image it reads', async () => {
    const png = await sharp({
      create: { width: 1200, height: 300, channels: 4, background: '#d04a02' },
    })
      .png()
      .toBuffer();
    const made = await makeLogo(png);
    expect(made).toMatchObject({ type: 'image/webp', width: 480, height: 120 });
    expect(isLogo(made)).toBe(true);
    expect(Buffer.from(made.data, 'base64').length).toBeLessThanOrEqual(LOGO_BYTES);
    // a small one is not enlarged
    const tiny = await makeLogo(
      await sharp({ create: { width: 40, height: 20, channels: 3, background: '#000' } })
        .jpeg()
        .toBuffer(),
    );
    expect(tiny).toMatchObject({ width: 40, height: 20 });
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>');
    for (const bad of [svg, Buffer.from('not an image'), Buffer.alloc(0)]) {
      await expect(makeLogo(bad)).rejects.toThrow(/must be a PNG, JPEG, WebP or GIF/);
    }
    await expect(makeLogo(Buffer.alloc(3 * 1024 * 1024))).rejects.toThrow(/at most 2 MB/);
    // a decompression bomb: 36 megapixels in a few KB of PNG
    const bomb = await sharp({
      create: { width: 6000, height: 6000, channels: 3, background: '#fff' },
    })
      .png()
      .toBuffer();
    await expect(makeLogo(bomb)).rejects.toThrow(/at most 25 megapixels/);
  });
});
