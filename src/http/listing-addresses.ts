/**
 * The listings' addresses: one table that the routes register (routes/listings/listings.routes.ts)
 * and the 304 path before routing reads (listing-fast-path.ts: `listingOf`), so the two cannot
 * name different addresses.
 */
export const LISTING_PATHS = {
  apps: '/api/v1/apps.json',
  platformApps: '/api/v1/platform/:version/apps.json',
  exApps: '/api/v1/appapi_apps.json',
  ratings: '/api/v1/ratings.json',
  categories: '/api/v1/categories.json',
  discover: '/api/v1/discover.json',
  platforms: '/api/v1/platforms.json',
} as const;

/** The listings whose address has no parameter and no query that matters. */
export const WHOLE_LISTINGS = ['ratings', 'categories', 'discover', 'platforms'] as const;
