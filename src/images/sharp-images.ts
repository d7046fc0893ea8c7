import sharp from 'sharp';
import type { ImageFormat, ImageTool } from '../domain/screenshots/screenshot-copies.ts';
import { SCREENSHOT_LIMITS } from '../domain/screenshots/screenshot-copies.ts';

// One image at a time and no cache: screenshots are copied in the background, a few at a time,
// and the service's memory stays its own (libvips would otherwise keep decoded images around).
sharp.concurrency(1);
sharp.cache(false);

const SHARP_FORMATS: Readonly<Record<string, ImageFormat>> = { png: 'png', jpeg: 'jpeg', gif: 'gif', webp: 'webp' };

/**
 * The image adapter (sharp, over libvips): only the four raster formats the domain let through by
 * their bytes reach it, each opened with that format's loader alone, within the pixel limit, and
 * failing on any decoding error rather than drawing what it could.
 */
function open(bytes: Buffer, format: ImageFormat): ReturnType<typeof sharp> {
  return sharp(bytes, {
    limitInputPixels: SCREENSHOT_LIMITS.maxPixels,
    failOn: 'error',
    animated: false,
    ...(format === 'gif' ? { pages: 1 } : {}),
  });
}

export const sharpImages: ImageTool = {
  async inspect(bytes, format) {
    const meta = await open(bytes, format).metadata();
    const found = SHARP_FORMATS[meta.format ?? ''];
    if (found === undefined || meta.width === undefined || meta.height === undefined)
      throw new Error(`not a readable ${format} image`);
    return { format: found, width: meta.width, height: meta.height };
  },
  async thumbnail(bytes, format, width) {
    return open(bytes, format)
      .rotate()
      .resize({ width, withoutEnlargement: true })
      .webp({ quality: 80, effort: 4 })
      .toBuffer();
  },
};
