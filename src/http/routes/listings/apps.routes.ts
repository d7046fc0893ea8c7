import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Container } from '../../../container.ts';
import { PLATFORM_VERSION_PATTERN } from '../../../domain/catalog/catalog.ts';
import { assembleAppListing, toFragment } from '../../../domain/listings/app-listing.ts';
import { FragmentSnapshots } from '../../../domain/listings/fragment-snapshots.ts';
import { recentWindowStart } from '../../../domain/listings/rating-aggregate.ts';
import { loadListedApps, loadListedRatings } from '../../../storage/repositories/listing.repository.ts';
import { readSnapshot } from '../../../storage/read-snapshot.ts';
import { sendListing } from '../../conditional-get.ts';
import { errorResponse } from '../../schemas.ts';
import { ListingRequestHeaders, listingResponses } from './listings.schemas.ts';

const EnterpriseQuery = Type.Object(
  { include_enterprise: Type.Optional(Type.String({ description: 'true or 1 (any case) includes enterprise-only apps' })) },
  { additionalProperties: true },
);
const includesEnterprise = (query: unknown): boolean => /^(true|1)$/i.test(String((query as { include_enterprise?: string }).include_enterprise ?? ''));

/** apps.json, platform/{v}/apps.json and ratings.json. */
export async function appListingRoutes(app: FastifyInstance, container: Container): Promise<void> {
  const deps = { readVersion: container.readVersion, cache: container.listingCache };
  const { database } = container;
  const snapshots = new FragmentSnapshots(async (window) => {
    const { stamp, body } = await readSnapshot(database, (db) => loadListedApps(db, window.since));
    return { stamp, day: window.day, fragments: body.map(toFragment) };
  });

  // The recent ratings move with the days: the day is part of every app listing's ETag.
  const sendAppListing = (request: FastifyRequest, reply: FastifyReply, variant: string, platform?: string) => {
    const includeEnterprise = includesEnterprise(request.query);
    const window = recentWindowStart(container.now());
    const key = `${variant}-${window.day}-${includeEnterprise ? 'all' : 'public'}`;
    return sendListing(request, reply, deps, key, async (minVersion) => {
      const snapshot = await snapshots.get(window, minVersion);
      return { stamp: snapshot.stamp, json: assembleAppListing(snapshot.fragments, { includeEnterprise, ...(platform === undefined ? {} : { platform }) }) };
    });
  };

  app.get('/api/v1/apps.json', {
    schema: {
      summary: 'Every app that has a release, with all its releases',
      tags: ['listings'],
      headers: ListingRequestHeaders,
      querystring: EnterpriseQuery,
      response: listingResponses('App', 'Apps with all their releases'),
    },
    handler: (request, reply) => sendAppListing(request, reply, 'apps'),
  });

  app.get('/api/v1/platform/:version/apps.json', {
    schema: {
      summary: 'Apps with the releases compatible with a platform version',
      tags: ['listings'],
      headers: ListingRequestHeaders,
      params: Type.Object({ version: Type.String({ pattern: PLATFORM_VERSION_PATTERN.source, description: 'X.Y.Z' }) }),
      querystring: EnterpriseQuery,
      response: { ...listingResponses('App', 'Apps with their compatible releases; apps without one are left out'), 400: errorResponse('The version is not X.Y.Z') },
    },
    handler: (request, reply) => {
      const { version } = request.params as { version: string };
      return sendAppListing(request, reply, `platform-${version}`, version);
    },
  });

  app.get('/api/v1/ratings.json', {
    schema: {
      summary: 'Every rating, newest first',
      tags: ['listings'],
      headers: ListingRequestHeaders,
      response: listingResponses('Rating', 'Ratings'),
    },
    handler: (request, reply) =>
      sendListing(request, reply, deps, 'ratings', () => readSnapshot(database, (db) => loadListedRatings(db))),
  });
}
