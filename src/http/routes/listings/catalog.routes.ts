import type { FastifyInstance } from 'fastify';
import type { Container } from '../../../container.ts';
import { sortCategories } from '../../../domain/catalog/catalog.ts';
import { listCategories } from '../../../storage/repositories/category.repository.ts';
import { listPlatformReleases } from '../../../storage/repositories/platform-release.repository.ts';
import { readSnapshot } from '../../../storage/read-snapshot.ts';
import { sendListing } from '../../conditional-get.ts';
import { ListingRequestHeaders, listingResponses } from './listings.schemas.ts';

/** categories.json and platforms.json: small listings, same caching as the large ones. */
export async function catalogRoutes(app: FastifyInstance, container: Container): Promise<void> {
  const deps = { readVersion: container.readVersion, cache: container.listingCache };
  const { database } = container;

  app.get('/api/v1/categories.json', {
    schema: {
      summary: 'Every category, ordered by id',
      tags: ['listings'],
      headers: ListingRequestHeaders,
      response: listingResponses('Category', 'Categories with the translations that exist'),
    },
    handler: (request, reply) =>
      sendListing(request, reply, deps, 'categories', () =>
        readSnapshot(database, async (db) => sortCategories(await listCategories(db))),
      ),
  });

  app.get('/api/v1/platforms.json', {
    schema: {
      summary: 'Supported platform releases (clients must not rely on the order)',
      tags: ['listings'],
      headers: ListingRequestHeaders,
      response: listingResponses('PlatformRelease', 'Platform releases with isSupported true, newest first'),
    },
    handler: (request, reply) =>
      sendListing(request, reply, deps, 'platforms', () =>
        readSnapshot(database, (db) => listPlatformReleases(db, { supportedOnly: true })),
      ),
  });
}
