/**
 * The store's one timestamp format, in the listings and in the database: ISO 8601 UTC with six
 * fractional digits (`2016-06-25T16:08:56.794000Z`), as the original store shows them. Fixed
 * width, so text order is time order.
 */
export function formatTimestamp(date: Date): string {
  return `${date.toISOString().slice(0, 23)}000Z`;
}

export function parseTimestamp(value: string): Date {
  return new Date(`${value.slice(0, 23)}Z`);
}
