/**
 * Timestamps are stored as ISO 8601 UTC text with six fractional digits, the form the listings
 * show (`2016-06-25T16:08:56.794000Z`). Fixed width, so text order is time order.
 */
export function toTimestamp(date: Date): string {
  return `${date.toISOString().slice(0, 23)}000Z`;
}

export function nowTimestamp(): string {
  return toTimestamp(new Date());
}

export function fromTimestamp(value: string): Date {
  return new Date(`${value.slice(0, 23)}Z`);
}
