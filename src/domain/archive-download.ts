/**
 * Fetches a release archive within the store's limits (`downloads/archive-downloader.ts`).
 * `into`, when given, is the buffer to read it into (a publish slot's, reused: publish-slots.ts);
 * the bytes returned are then a view of it, valid until the slot is released.
 */
export type Downloader = (url: string, into?: Buffer) => Promise<{ readonly bytes: Buffer }>;
