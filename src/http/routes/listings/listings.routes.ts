import { Type } from 'typebox';
import type { Container } from '../../../container.ts';
import { PLATFORM_VERSION_PATTERN } from '../../../domain/versions/semantic-version.ts';
import { KEYED_LISTING_CACHING, LISTING_CACHING, sendListing } from '../../conditional-get.ts';
import { includesEnterprise } from '../../listing-fast-path.ts';
import { errorResponses } from '../../schemas.ts';
import type { AppServer } from '../../types.ts';
import { ListingRequestHeaders, listingResponses } from './listings.schemas.ts';
import { LISTING_PATHS } from '../../listing-addresses.ts';

const EnterpriseQuery = Type.Object(
  {
    include_enterprise: Type.Optional(
      Type.String({ description: 'true or 1 (any case) includes enterprise-only apps' }),
    ),
  },
  { additionalProperties: true },
);

const PlatformParams = Type.Object({
  version: Type.String({
    pattern: PLATFORM_VERSION_PATTERN.source,
    description: 'a platform version X.Y.Z, digits only, such as 30.0.0',
  }),
});

/**
 * Every listing Nextcloud servers poll: apps.json, platform/{v}/apps.json, ratings.json,
 * categories.json, platforms.json, discover.json, appapi_apps.json. Each names its listing; the domain decides the rest.
 */
export async function listingRoutes(app: AppServer, container: Container): Promise<void> {
  const { listings } = container;
  const { check } = container.subscriptionKeys;
  /**
   * Enterprise-only apps too: `include_enterprise`, or a subscription key this store knows
   * (X-NC-Subscription-Key, issue 52). An answer for a key is private to that server.
   */
  const enterprise = async (request: {
    query: { include_enterprise?: string };
    headers: Record<string, string | string[] | undefined>;
  }): Promise<{ includeEnterprise: boolean; caching: typeof LISTING_CACHING | typeof KEYED_LISTING_CACHING }> => {
    const key = request.headers['x-nc-subscription-key'];
    const caching = key === undefined ? LISTING_CACHING : KEYED_LISTING_CACHING;
    if (includesEnterprise(request.query.include_enterprise)) return { includeEnterprise: true, caching };
    return { includeEnterprise: key !== undefined && (await check.valid(key)), caching };
  };

  app.get(LISTING_PATHS.apps, {
    schema: {
      summary: 'Every app that has a release, with all its releases',
      tags: ['listings'],
      headers: ListingRequestHeaders,
      querystring: EnterpriseQuery,
      response: listingResponses('App', 'Apps with all their releases'),
    },
    handler: async (request, reply) => {
      const { includeEnterprise, caching } = await enterprise(request);
      return sendListing(request, reply, await listings.open({ kind: 'apps', includeEnterprise }), caching);
    },
  });

  app.get(LISTING_PATHS.platformApps, {
    schema: {
      summary: 'Apps with the releases compatible with a platform version',
      tags: ['listings'],
      headers: ListingRequestHeaders,
      params: PlatformParams,
      querystring: EnterpriseQuery,
      response: {
        ...listingResponses('App', 'Apps with their compatible releases; apps without one are left out'),
        ...errorResponses('invalid_request'),
      },
    },
    handler: async (request, reply) => {
      const { includeEnterprise, caching } = await enterprise(request);
      return sendListing(
        request,
        reply,
        await listings.open({ kind: 'apps', includeEnterprise, platform: request.params.version }),
        caching,
      );
    },
  });

  app.get(LISTING_PATHS.exApps, {
    schema: {
      summary: 'Every ExApp (AppAPI) with its ExApp releases, each with its container data',
      tags: ['listings'],
      headers: ListingRequestHeaders,
      querystring: EnterpriseQuery,
      response: listingResponses(
        'App',
        'Apps with their ExApp releases (aaIsSystem, deployMethods, apiScopes, environmentVariables added to each release); apps without one are left out',
      ),
    },
    handler: async (request, reply) => {
      const { includeEnterprise, caching } = await enterprise(request);
      return sendListing(
        request,
        reply,
        await listings.open({ kind: 'apps', includeEnterprise, exApps: true }),
        caching,
      );
    },
  });

  app.get(LISTING_PATHS.ratings, {
    schema: {
      summary: 'Every rating, newest first',
      tags: ['listings'],
      headers: ListingRequestHeaders,
      response: listingResponses('Rating', 'Ratings'),
    },
    handler: async (request, reply) => sendListing(request, reply, await listings.open({ kind: 'ratings' })),
  });

  app.get(LISTING_PATHS.categories, {
    schema: {
      summary: 'Every category, ordered by id',
      tags: ['listings'],
      headers: ListingRequestHeaders,
      response: listingResponses('Category', 'Categories with the translations that exist'),
    },
    handler: async (request, reply) => sendListing(request, reply, await listings.open({ kind: 'categories' })),
  });

  app.get(LISTING_PATHS.discover, {
    schema: {
      summary: "The Discover section's entries (posts, showcases, carousels); expired ones left out",
      tags: ['listings'],
      headers: ListingRequestHeaders,
      response: listingResponses(
        'DiscoverEntry',
        'Discover entries, in the order the administrators gave; [] when there are none',
      ),
    },
    handler: async (request, reply) => sendListing(request, reply, await listings.open({ kind: 'discover' })),
  });

  app.get(LISTING_PATHS.platforms, {
    schema: {
      summary: 'Supported platform releases (clients must not rely on the order)',
      tags: ['listings'],
      headers: ListingRequestHeaders,
      response: listingResponses('PlatformRelease', 'Platform releases with isSupported true, newest first'),
    },
    handler: async (request, reply) => sendListing(request, reply, await listings.open({ kind: 'platforms' })),
  });
}
