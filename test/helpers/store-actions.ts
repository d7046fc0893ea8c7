import { importCategories } from '../../src/domain/catalog/import-catalog.ts';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import type { Container } from '../../src/container.ts';
import { getOrCreateToken } from '../../src/domain/accounts/api-tokens.ts';
import { createUser } from './accounts.ts';
import { TEST_ACTING } from './acting.ts';
import { appArchive, signWith } from './app-archive.ts';
import type { ManifestOptions } from './app-archive.ts';
import { readCert } from './certificate-fixtures.ts';
import type { ArchiveServer } from './https-archive-server.ts';

/** An answer, whether it came from `inject()` or over a real connection. */
export interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly text: string;
  json<T = unknown>(): T;
}

/** Sends one request to a store: in process (`inject`) or to a running one (`fetch`). */
export type Send = (
  method: string,
  url: string,
  options?: { headers?: Record<string, string>; payload?: unknown },
) => Promise<Answer>;

export function injectSend(app: FastifyInstance): Send {
  return async (method, url, options = {}) => {
    const response = await app.inject({
      method: method as 'GET',
      url,
      headers: options.headers ?? {},
      ...(options.payload === undefined ? {} : { payload: options.payload as object }),
    });
    const headers = Object.fromEntries(
      Object.entries(response.headers).map(([name, value]) => [name, value === undefined ? undefined : String(value)]),
    );
    return { status: response.statusCode, headers, text: response.body, json: <T>() => JSON.parse(response.body) as T };
  };
}

export function fetchSend(origin: string): Send {
  return async (method, url, options = {}) => {
    const body = options.payload === undefined ? undefined : JSON.stringify(options.payload);
    const headers = { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers };
    const response = await fetch(`${origin}${url}`, { method, headers, ...(body === undefined ? {} : { body }) });
    const text = await response.text();
    return {
      status: response.status,
      headers: Object.fromEntries(response.headers),
      text,
      json: <T>() => JSON.parse(text) as T,
    };
  };
}

/** A new user (no password) and their API token, straight from the domain: the usual start of a test that publishes. */
export async function userWithToken(
  container: Container,
  username: string,
  password: string | null = null,
): Promise<string> {
  return getOrCreateToken(await createUser(container, username, password), TEST_ACTING, container.accounts);
}

/** The API token of a user, obtained as a client does (Basic, POST /api/v1/token). */
export async function tokenOf(send: Send, username: string, password: string): Promise<string> {
  const answer = await send('POST', '/api/v1/token', {
    headers: { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` },
  });
  assert.equal(answer.status, 200, answer.text);
  return answer.json<{ token: string }>().token;
}

/** The categories an app archive of the fixtures names (multimedia, tools, …), each with an English name. */
export async function importTestCategories(
  container: Container,
  ids: readonly string[] = ['multimedia', 'tools'],
): Promise<void> {
  await importCategories(
    ids.map((id) => ({ id, translations: { en: { name: id, description: '' } } })),
    TEST_ACTING,
    container.catalog,
  );
}

/** Registers one of the fixture apps (news, notes: their certificate and signature over the id); the status. */
export async function registerFixtureApp(send: Send, token: string, id: 'news' | 'notes'): Promise<number> {
  const answer = await send('POST', '/api/v1/apps', {
    headers: { authorization: `Token ${token}` },
    payload: { certificate: readCert(`${id}.crt`), signature: readCert(`${id}.sig`) },
  });
  assert.ok(answer.status === 201 || answer.status === 204, answer.text);
  return answer.status;
}

let served = 0;

/**
 * Builds an archive of a fixture app, serves it from the local HTTPS server, signs it with the
 * app's key and publishes it: the answer (201 created, 200 updated, or a refusal).
 */
export async function publishFixtureRelease(
  send: Send,
  token: string,
  files: ArchiveServer,
  options: ManifestOptions & { id: 'news' | 'notes'; nightly?: boolean; icon?: string },
): Promise<Answer> {
  const bytes = await appArchive(options);
  served += 1;
  const path = `/release-${served}.tar.gz`;
  files.serve(path, bytes);
  return send('POST', '/api/v1/apps/releases', {
    headers: { authorization: `Token ${token}` },
    payload: {
      download: `${files.origin}${path}`,
      signature: signWith(options.id, bytes),
      nightly: options.nightly ?? false,
    },
  });
}

/** `<external-app>` as the original's full AppAPI case has it: an ExApp release. */
export const externalAppXml = (tag: string, system = true): string => `<external-app>
  <docker-install><registry>ghcr.io</registry><image>nextcloud/news_exapp</image><image-tag>${tag}</image-tag></docker-install>
  <scopes><value>FILES</value><value>NOTIFICATIONS</value><value>TALK</value></scopes>
  <system>${system}</system>
  <environment-variables>
    <variable><name>SOME_VALUE1</name><display-name>Display name 1</display-name><description>Some useful description of it</description></variable>
    <variable><name>SOME_VALUE2</name><display-name>Display name 2</display-name><description>With a default</description><default>0</default></variable>
  </environment-variables>
</external-app>`;
