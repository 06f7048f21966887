// Two crops of one size side by side, each enlarged 2x with nearest-neighbour (pixels stay
// pixels), a grey gap between them: the picture bench/crops.ts and bench/phoneCrops.ts write.
import sharp from 'sharp';

export const sideBySide = async (
  left: Buffer,
  right: Buffer,
  region: { width: number; height: number },
  out: string,
) => {
  const enlarged = (png: Buffer) =>
    sharp(png)
      .resize(region.width * 2, region.height * 2, { kernel: 'nearest' })
      .png()
      .toBuffer();
  const gap = 12;
  await sharp({
    create: {
      width: region.width * 4 + gap,
      height: region.height * 2,
      channels: 3,
      background: '#888888',
    },
  })
    .composite([
      { input: await enlarged(left), left: 0, top: 0 },
      { input: await enlarged(right), left: region.width * 2 + gap, top: 0 },
    ])
    .png()
    .toFile(out);
};
