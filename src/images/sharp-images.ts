import type Sharp from 'sharp';
import type { ImageFormat, ImageTool } from '../domain/screenshots/screenshot-copies.ts';
import { SCREENSHOT_LIMITS } from '../domain/screenshots/screenshot-copies.ts';

let loaded: Promise<typeof Sharp> | undefined;
/**
 * sharp, loaded on the first image (scripts/build.mjs, LOADED_LATER): loading it and libvips took
 * 20 to 30 ms of every start, and of every command, though most never touch an image.
 * One image at a time and no cache: screenshots are copied in the background, a few at a time,
 * and the service's memory stays its own (libvips would otherwise keep decoded images around).
 */
const sharpLibrary = (): Promise<typeof Sharp> =>
  (loaded ??= import('sharp').then(({ default: sharp }) => {
    sharp.concurrency(1);
    sharp.cache(false);
    return sharp;
  }));

const SHARP_FORMATS: Readonly<Record<string, ImageFormat>> = { png: 'png', jpeg: 'jpeg', gif: 'gif', webp: 'webp' };

/**
 * The image adapter (sharp, over libvips): only the four raster formats the domain let through by
 * their bytes reach it, each opened with that format's loader alone, within the pixel limit, and
 * failing on any decoding error rather than drawing what it could.
 */
async function open(bytes: Buffer, format: ImageFormat): Promise<ReturnType<typeof Sharp>> {
  const sharp = await sharpLibrary();
  return sharp(bytes, {
    limitInputPixels: SCREENSHOT_LIMITS.maxPixels,
    failOn: 'error',
    animated: false,
    ...(format === 'gif' ? { pages: 1 } : {}),
  });
}

export const sharpImages: ImageTool = {
  async inspect(bytes, format) {
    const meta = await (await open(bytes, format)).metadata();
    const found = SHARP_FORMATS[meta.format ?? ''];
    if (found === undefined || meta.width === undefined || meta.height === undefined)
      throw new Error(`not a readable ${format} image`);
    // EXIF orientations 5 to 8 turn the image a quarter: it is shown (and kept) the other way round.
    const turned = (meta.orientation ?? 1) >= 5;
    return {
      format: found,
      width: turned ? meta.height : meta.width,
      height: turned ? meta.width : meta.height,
      // A GIF, or an animated WebP, is kept as it came: written again, it would lose its frames.
      hasMetadata:
        found !== 'gif' &&
        (meta.pages ?? 1) === 1 &&
        (meta.exif !== undefined || meta.xmp !== undefined || meta.iptc !== undefined),
    };
  },
  async withoutMetadata(bytes, format) {
    // sharp writes no metadata unless asked to (withMetadata, keepExif): only the pixels, turned upright.
    const image = (await open(bytes, format)).rotate();
    if (format === 'png') return image.png({ compressionLevel: 9 }).toBuffer();
    if (format === 'jpeg') return image.jpeg({ quality: 92, chromaSubsampling: '4:4:4' }).toBuffer();
    if (format === 'webp') return image.webp({ quality: 92 }).toBuffer();
    return bytes;
  },
  async thumbnail(bytes, format, width) {
    return (await open(bytes, format))
      .rotate()
      .resize({ width, withoutEnlargement: true })
      .webp({ quality: 80, effort: 4 })
      .toBuffer();
  },
};
