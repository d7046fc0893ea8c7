import { Type } from 'typebox';

/**
 * The listings' documents as the contract states them (apps.json, categories.json,
 * platforms.json, ratings.json, discover.json): what the routes declare and serialise, and what
 * the saved listing parts are fingerprinted with (a change here is a new part format).
 */

/** A discover.json entry (docs/decisions.md, discover.json): the original store's schema, app-discover.schema.json. */
export const DiscoverEntrySchema = Type.Object(
  {
    type: Type.Union([Type.Literal('post'), Type.Literal('showcase'), Type.Literal('carousel')]),
    id: Type.String(),
    order: Type.Optional(Type.Integer()),
    headline: Type.Optional(
      Type.Record(Type.String(), Type.String(), { description: 'Language tag → text; en always present' }),
    ),
    text: Type.Optional(Type.Record(Type.String(), Type.String())),
    link: Type.Optional(Type.String({ description: 'https://… or app://APP_ID' })),
    date: Type.Optional(Type.String({ format: 'date-time' })),
    expiryDate: Type.Optional(Type.String({ format: 'date-time' })),
  },
  {
    $id: 'DiscoverEntry',
    additionalProperties: true,
    description: 'A post (with media), or a showcase or carousel (with content)',
  },
);

export const CategorySchema = Type.Object(
  {
    id: Type.String(),
    translations: Type.Record(Type.String(), Type.Object({ name: Type.String(), description: Type.String() }), {
      description: 'Language code → texts; only languages that exist',
    }),
  },
  { $id: 'Category', title: 'Category' },
);

export const PlatformReleaseSchema = Type.Object(
  {
    version: Type.String({ description: 'X.Y.Z' }),
    hasRelease: Type.Boolean(),
    isSupported: Type.Boolean(),
  },
  { $id: 'PlatformRelease', title: 'Platform release' },
);

const DependencySchema = Type.Object({ id: Type.String(), versionSpec: Type.String(), rawVersionSpec: Type.String() });

export const ReleaseSchema = Type.Object(
  {
    version: Type.String(),
    phpExtensions: Type.Array(DependencySchema),
    databases: Type.Array(DependencySchema),
    shellCommands: Type.Array(Type.String()),
    phpVersionSpec: Type.String(),
    rawPhpVersionSpec: Type.String(),
    platformVersionSpec: Type.String(),
    rawPlatformVersionSpec: Type.String(),
    minIntSize: Type.Integer(),
    isNightly: Type.Boolean(),
    download: Type.String(),
    created: Type.String(),
    lastModified: Type.String(),
    licenses: Type.Array(Type.String()),
    signature: Type.String(),
    signatureDigest: Type.String(),
    translations: Type.Record(Type.String(), Type.Object({ changelog: Type.String() })),
    aaIsSystem: Type.Optional(Type.Boolean({ description: 'appapi_apps.json only: the ExApp asks for system rights' })),
    deployMethods: Type.Optional(
      Type.Array(
        Type.Object({
          installType: Type.Literal('docker_install'),
          installData: Type.String({ description: 'JSON text of {registry, image, image_tag}' }),
        }),
        {
          description: 'appapi_apps.json only',
        },
      ),
    ),
    apiScopes: Type.Optional(
      Type.Array(Type.Object({ scopeName: Type.String() }), { description: 'appapi_apps.json only' }),
    ),
    environmentVariables: Type.Optional(
      Type.Array(
        Type.Object({
          name: Type.String(),
          displayName: Type.String(),
          description: Type.String(),
          default: Type.Union([Type.String(), Type.Null()]),
        }),
        {
          description: 'appapi_apps.json only',
        },
      ),
    ),
    provenance: Type.Optional(
      Type.Object(
        {
          provider: Type.String({ description: 'github, gitlab or oidc' }),
          issuer: Type.String(),
          repository: Type.String(),
          commit: Type.Union([Type.String(), Type.Null()]),
          workflow: Type.Union([Type.String(), Type.Null()]),
          ref: Type.Union([Type.String(), Type.Null()]),
          environment: Type.Union([Type.String(), Type.Null()]),
          runId: Type.Union([Type.String(), Type.Null()]),
          runUrl: Type.Union([Type.String(), Type.Null()]),
        },
        {
          description:
            'Only on releases published through trusted publishing: the CI job (repository, commit, workflow, run) the store verified',
        },
      ),
    ),
  },
  { $id: 'Release', title: 'Release' },
);

export const AppSchema = Type.Object(
  {
    id: Type.String(),
    categories: Type.Array(Type.String()),
    authors: Type.Array(Type.Object({ name: Type.String(), mail: Type.String(), homepage: Type.String() })),
    userDocs: Type.String(),
    adminDocs: Type.String(),
    developerDocs: Type.String(),
    issueTracker: Type.String(),
    website: Type.String(),
    discussion: Type.String(),
    created: Type.String(),
    lastModified: Type.String(),
    ratingOverall: Type.Number(),
    ratingNumOverall: Type.Integer(),
    ratingRecent: Type.Number(),
    ratingNumRecent: Type.Integer(),
    screenshots: Type.Array(Type.Object({ url: Type.String(), smallThumbnail: Type.String() })),
    translations: Type.Record(
      Type.String(),
      Type.Object({ name: Type.String(), summary: Type.String(), description: Type.String() }),
    ),
    isFeatured: Type.Boolean(),
    certificate: Type.String({ description: 'PEM, CR LF line separators' }),
    isDeprecated: Type.Optional(Type.Literal(true, { description: 'Only when its owner deprecated the app' })),
    deprecationReason: Type.Optional(Type.String({ description: 'Only when deprecated' })),
    successor: Type.Optional(Type.String({ description: 'The app to use instead, when the owner named one' })),
    isOrphan: Type.Optional(Type.Literal(true, { description: 'Only when the app looks for maintainers' })),
    retiredReleases: Type.Optional(
      Type.Array(
        Type.Object({
          version: Type.String(),
          isNightly: Type.Boolean(),
          reason: Type.String({ description: 'security, broken or other' }),
        }),
        { description: 'Only when some are: releases no longer offered (not in releases)' },
      ),
    ),
    releases: Type.Array(Type.Ref('Release')),
  },
  { $id: 'App', title: 'App' },
);

export const RatingSchema = Type.Object(
  {
    rating: Type.Number(),
    ratedAt: Type.String(),
    translations: Type.Record(Type.String(), Type.Object({ comment: Type.String() })),
    user: Type.Object({ id: Type.Integer(), firstName: Type.String(), lastName: Type.String() }),
    app: Type.String(),
  },
  { $id: 'Rating', title: 'App rating' },
);
