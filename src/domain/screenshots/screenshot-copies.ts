import type { ArchiveStorage } from '../archives/archive-storage.ts';
import type { Downloader } from '../archive-download.ts';
import { createHash } from 'node:crypto';

/**
 * Screenshots through the store (issue 54): the website shows no image from another host. The
 * screenshot URLs of info.xml are fetched by the store (through the download guard: every hop's
 * address checked, HTTPS, a size limit), checked (the type by its bytes, pixel limits), kept in the
 * archive storage by content hash, and served from the store with a thumbnail it makes. The
 * listings keep the developers' URLs (Nextcloud servers rewrite them to their own proxy).
 */

export type ImageFormat = 'png' | 'jpeg' | 'gif' | 'webp';

export const SCREENSHOT_LIMITS = {
  /** The most a screenshot may weigh. */
  maxBytes: 8 * 1024 * 1024,
  /** The most pixels (width × height) and the longest side a screenshot may have. */
  maxPixels: 40_000_000,
  maxSide: 10_000,
  /** The thumbnail's width (cards and the gallery); its height follows. */
  thumbnailWidth: 480,
  /** A failed copy is tried again after this long. */
  retryAfterMs: 24 * 3_600_000,
} as const;

export const CONTENT_TYPES: Readonly<Record<ImageFormat, string>> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};

/** The image type by its first bytes (never by the URL or a header); null for anything else (SVG, HTML…). */
export function imageTypeOf(bytes: Buffer): ImageFormat | null {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  const head = bytes.subarray(0, 6).toString('latin1');
  if (head === 'GIF87a' || head === 'GIF89a') return 'gif';
  if (
    bytes.length >= 12 &&
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' &&
    bytes.subarray(8, 12).toString('latin1') === 'WEBP'
  )
    return 'webp';
  return null;
}

/** What an image library says of an image, and the thumbnail it makes (`images/sharp-images.ts`). */
export interface ImageTool {
  /**
   * The decoded header: format, size as shown (an EXIF rotation applied), and whether the file
   * carries metadata about where and how it was made (EXIF, XMP, IPTC); throws when the image
   * cannot be read.
   */
  inspect(
    bytes: Buffer,
    format: ImageFormat,
  ): Promise<{
    readonly format: ImageFormat;
    readonly width: number;
    readonly height: number;
    readonly hasMetadata: boolean;
  }>;
  /** The image again in its format, turned as its EXIF says, without EXIF, XMP or IPTC metadata. */
  withoutMetadata(bytes: Buffer, format: ImageFormat): Promise<Buffer>;
  /** A WebP `width` pixels wide (never wider than the image), its first frame for animations. */
  thumbnail(bytes: Buffer, format: ImageFormat, width: number): Promise<Buffer>;
}

/** A screenshot's copy: where its image and thumbnail are, or why it could not be copied. */
export interface ScreenshotCopy {
  readonly url: string;
  readonly sha256: string | null;
  readonly format: ImageFormat | null;
  readonly width: number | null;
  readonly height: number | null;
  readonly thumbnailSha256: string | null;
  readonly fetchedAt: string;
  readonly problem: string | null;
}

export interface ScreenshotCopyStore {
  /** Screenshot URLs of the listed apps with no copy yet, or whose copy failed before `retryBefore`; at most `limit`. */
  missing(retryBefore: Date, limit: number): Promise<string[]>;
  save(copy: ScreenshotCopy): Promise<void>;
  /** What became of the screenshots apps list now, by URL: copied, or refused with why; absent: not tried yet. */
  copies(): Promise<ReadonlyMap<string, ScreenshotCopy>>;
  /** A stored image or thumbnail by its hash: its content type; null when no copy of a listed screenshot names it. */
  servedType(sha256: string): Promise<string | null>;
}

export interface ScreenshotDeps {
  readonly download: Downloader;
  readonly images: ImageTool;
  readonly storage: ArchiveStorage;
  readonly store: ScreenshotCopyStore;
  readonly now: () => Date;
}

const sha256Hex = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** Why a screenshot is refused, in words for the log and the operator. */
function refused(reason: string): never {
  throw new Error(reason);
}

/** Fetches, checks and keeps one screenshot and its thumbnail; a refusal is recorded, never thrown. */
export async function copyScreenshot(url: string, deps: ScreenshotDeps): Promise<ScreenshotCopy> {
  const fetchedAt = deps.now().toISOString();
  try {
    if (!url.startsWith('https://')) refused('not an https URL');
    const { bytes } = await deps.download(url);
    if (bytes.length > SCREENSHOT_LIMITS.maxBytes) refused(`larger than ${SCREENSHOT_LIMITS.maxBytes} bytes`);
    const format = imageTypeOf(bytes);
    if (format === null) refused('not a PNG, JPEG, GIF or WebP image (by its bytes)');
    const info = await deps.images.inspect(bytes, format);
    if (info.format !== format) refused(`its bytes start as ${format} but decode as ${info.format}`);
    if (info.width > SCREENSHOT_LIMITS.maxSide || info.height > SCREENSHOT_LIMITS.maxSide)
      refused(`${info.width}×${info.height} pixels: a side is longer than ${SCREENSHOT_LIMITS.maxSide}`);
    if (info.width * info.height > SCREENSHOT_LIMITS.maxPixels)
      refused(`${info.width}×${info.height} pixels: more than ${SCREENSHOT_LIMITS.maxPixels}`);
    // A camera's or an editor's metadata (where a photo was taken, the device, the author's
    // name) is not served to every visitor: such an image is written again without it.
    const kept = info.hasMetadata ? await deps.images.withoutMetadata(bytes, format) : bytes;
    const thumbnail = await deps.images.thumbnail(kept, format, SCREENSHOT_LIMITS.thumbnailWidth);
    const sha256 = sha256Hex(kept);
    const thumbnailSha256 = sha256Hex(thumbnail);
    await deps.storage.put(sha256, kept);
    await deps.storage.put(thumbnailSha256, thumbnail);
    const copy = {
      url,
      sha256,
      format,
      width: info.width,
      height: info.height,
      thumbnailSha256,
      fetchedAt,
      problem: null,
    };
    await deps.store.save(copy);
    return copy;
  } catch (error) {
    const problem = (error instanceof Error ? error.message : String(error)).slice(0, 500);
    const copy = {
      url,
      sha256: null,
      format: null,
      width: null,
      height: null,
      thumbnailSha256: null,
      fetchedAt,
      problem,
    };
    await deps.store.save(copy);
    return copy;
  }
}

/** Copies the listed apps' screenshots that have none yet (or whose copy failed a day ago), a few at a time. */
export async function copyMissingScreenshots(
  deps: ScreenshotDeps,
  limit = 20,
): Promise<{
  readonly copied: number;
  readonly refused: ReadonlyArray<{ readonly url: string; readonly problem: string }>;
}> {
  const urls = await deps.store.missing(new Date(deps.now().getTime() - SCREENSHOT_LIMITS.retryAfterMs), limit);
  let copied = 0;
  const problems: Array<{ url: string; problem: string }> = [];
  for (const url of urls) {
    const copy = await copyScreenshot(url, deps);
    if (copy.problem === null) copied += 1;
    else problems.push({ url, problem: copy.problem });
  }
  return { copied, refused: problems };
}

/** Where the store serves a kept image (a screenshot or a thumbnail): its content hash in the address. */
export function screenshotAddress(sha256: string, format: ImageFormat): string {
  return `/screenshots/${sha256}.${format === 'jpeg' ? 'jpg' : format}`;
}
