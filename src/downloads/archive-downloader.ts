import { said } from '../i18n/said.ts';
import type { Said } from '../i18n/said.ts';
import dns from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import net from 'node:net';
import type * as UndiciModule from 'undici';
import type { Agent, Dispatcher } from 'undici';
import { namedExports } from '../domain/accounts/password-rules.ts';
import { parseWebAddress } from '../domain/encodings.ts';
import type { Downloader } from '../domain/archive-download.ts';
import { AppError } from '../errors.ts';
import { isForbiddenAddress } from './address-guard.ts';
import type { TrustContext } from './trust-context.ts';

export interface DownloadOptions {
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly maxRedirects: number;
  /** APPSTORE_DOWNLOAD_ALLOW_PRIVATE: tests and intranet stores. */
  readonly allowPrivate: boolean;
  /** Node's roots and extra trusted authorities (the tests'), instead of Node's bundle and NODE_EXTRA_CA_CERTS. */
  readonly trust?: TrustContext;
}

// Messages name the host and what went wrong, never addresses, paths or library internals:
// the store must not become an oracle for what lies behind it.
export const refuse = (message: Said): AppError => new AppError('invalid_download', message);
const mib = (bytes: number): string => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;

class ForbiddenAddress extends Error {
  constructor(readonly host: string) {
    super('forbidden address');
  }
}

function guardedLookup(allowPrivate: boolean) {
  return (
    hostname: string,
    options: LookupOptions,
    callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error !== null) return callback(error, []);
      const usable = allowPrivate ? addresses : addresses.filter((a) => !isForbiddenAddress(a.address));
      if (usable.length === 0) return callback(new ForbiddenAddress(hostname), []);
      if (options.all === true) return callback(null, usable);
      const first = usable[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}

type Undici = typeof UndiciModule;
let undici: Promise<Undici> | undefined;
/**
 * undici, loaded on first use: it is a megabyte of the bundle, and a store that downloads nothing
 * before its port opens should not parse it first (issue 55). It is CommonJS: its names come on
 * the namespace, or only under `default` (`namedExports`).
 */
const loadUndici = (): Promise<Undici> =>
  (undici ??= import('undici').then((module) => namedExports(module, 'buildConnector')));

/** The guarded agent, made on first use (`agent()`), with the undici that made it. */
export interface GuardedAgent {
  agent(): Promise<{ readonly dispatcher: Agent; readonly undici: Undici }>;
}

/** An undici agent whose connections can only reach allowed addresses, checked on the socket too; made when first used. */
export function guardedAgent(options: DownloadOptions): GuardedAgent {
  let made: Promise<{ readonly dispatcher: Agent; readonly undici: Undici }> | undefined;
  return {
    agent: () => (made ??= loadUndici().then((loaded) => ({ dispatcher: makeAgent(loaded, options), undici: loaded }))),
  };
}

function makeAgent({ Agent, buildConnector }: Undici, options: DownloadOptions): Agent {
  const connect = buildConnector({
    lookup: guardedLookup(options.allowPrivate),
    ...(options.trust === undefined ? {} : { secureContext: options.trust() }),
    timeout: options.timeoutMs,
  });
  return new Agent({
    connect: (connectOptions, callback) => {
      const host = connectOptions.hostname;
      // An address literal skips the lookup: judge it before connecting.
      if (!options.allowPrivate && net.isIP(host.replace(/^\[|\]$/g, '')) !== 0 && isForbiddenAddress(host)) {
        callback(new ForbiddenAddress(host), null);
        return;
      }
      connect(connectOptions, (error, socket) => {
        if (error !== null) return callback(error, null);
        // Defence in depth: the address actually connected to.
        const remote = socket.remoteAddress ?? '';
        if (!options.allowPrivate && isForbiddenAddress(remote)) {
          socket.destroy();
          return callback(new ForbiddenAddress(host), null);
        }
        callback(null, socket);
      });
    },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
}

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (
    let current = error;
    current !== undefined && current !== null && chain.length < 10;
    current = (current as { cause?: unknown }).cause
  )
    chain.push(current);
  return chain;
}

function explain(error: unknown, host: string, timedOut: boolean, timeoutMs: number): AppError {
  if (error instanceof AppError) return error;
  if (timedOut) return refuse(said`download timed out after ${Math.round(timeoutMs / 100) / 10} s`);
  const chain = causes(error);
  if (chain.some((e) => e instanceof ForbiddenAddress))
    return refuse(said`download refused: ${host} resolves to a private, loopback or reserved address`);
  const codes = chain.map((e) => String((e as { code?: unknown }).code ?? ''));
  if (codes.includes('ENOTFOUND') || codes.includes('EAI_AGAIN'))
    return refuse(said`download failed: the host ${host} was not found`);
  if (
    codes.some(
      (c) =>
        c.startsWith('ERR_TLS') ||
        c.includes('CERT') ||
        c === 'DEPTH_ZERO_SELF_SIGNED_CERT' ||
        c === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    )
  ) {
    return refuse(said`download failed: the TLS certificate of ${host} is not trusted`);
  }
  if (
    codes.includes('UND_ERR_HEADERS_TIMEOUT') ||
    codes.includes('UND_ERR_BODY_TIMEOUT') ||
    codes.includes('UND_ERR_CONNECT_TIMEOUT')
  ) {
    return refuse(said`download timed out after ${Math.round(timeoutMs / 100) / 10} s`);
  }
  return refuse(said`download failed: could not fetch the archive from ${host}`);
}

type Answer = Dispatcher.ResponseData;

/**
 * One request through the guarded agent: HTTPS only, on every redirect hop; redirects followed by
 * hand (at most `maxRedirects`). The answer that is not a redirect is returned, whatever its
 * status, with the host it came from; failures are explained (`explain`).
 */
export async function guardedRequest(
  guarded: GuardedAgent,
  options: DownloadOptions,
  address: string,
  init: { readonly method: 'GET' | 'HEAD'; readonly headers: Record<string, string>; readonly signal: AbortSignal },
): Promise<{ readonly response: Answer; readonly host: string }> {
  const given = parseWebAddress(address);
  if (given === null) throw refuse(said`download must be an https:// URL`);
  let url: URL = given;
  const { dispatcher: agent, undici: loaded } = await guarded.agent();
  for (let hop = 0; ; hop++) {
    const host = url.hostname;
    try {
      const response = await loaded.request(url, {
        dispatcher: agent,
        method: init.method,
        signal: init.signal,
        headers: init.headers,
      });
      const status = response.statusCode;
      if (status >= 300 && status < 400 && status !== 304 && response.headers.location !== undefined) {
        await response.body.dump();
        if (hop >= options.maxRedirects)
          throw refuse(said`download failed: more than ${options.maxRedirects} redirects`);
        const location = Array.isArray(response.headers.location)
          ? response.headers.location[0]
          : response.headers.location;
        const next = new URL(location ?? '', url);
        if (next.protocol !== 'https:') throw refuse(said`redirect to a non-HTTPS URL refused (from ${host})`);
        url = next;
        continue;
      }
      return { response, host };
    } catch (error) {
      throw explain(error, host, init.signal.aborted, options.timeoutMs);
    }
  }
}

/** The body, counted while streaming against `maxBytes` (a missing or lying Content-Length changes nothing). */
export async function readLimited(
  response: Answer,
  host: string,
  maxBytes: number,
  what: string,
  options: DownloadOptions,
  signal: AbortSignal,
  into?: Buffer,
): Promise<Buffer> {
  const declared = Number(response.headers['content-length'] ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body.dump({ limit: 0 }).catch(() => undefined);
    throw refuse(said`${what} is larger than ${mib(maxBytes)}`);
  }
  // One buffer, filled as the bytes come (issue 49): the chunks are not kept and joined at the
  // end, which held each archive twice. Sized by the Content-Length when there is one (checked
  // above), else grown by doubling up to the limit.
  // `into`: a buffer of the caller's, reused from download to download (a publish slot's); large
  // enough for the limit, it never grows.
  let body =
    into !== undefined && into.length >= maxBytes
      ? into
      : Buffer.allocUnsafe(Number.isFinite(declared) && declared > 0 ? declared : Math.min(maxBytes, 1024 * 1024));
  let size = 0;
  try {
    for await (const chunk of response.body) {
      const bytes = chunk as Buffer;
      // Stop reading at the limit: never buffer more than allowed.
      if (size + bytes.length > maxBytes) {
        response.body.destroy();
        throw refuse(said`${what} is larger than ${mib(maxBytes)}`);
      }
      if (size + bytes.length > body.length) {
        const grown = Buffer.allocUnsafe(Math.min(maxBytes, Math.max(size + bytes.length, body.length * 2)));
        body.copy(grown, 0, 0, size);
        body = grown;
      }
      bytes.copy(body, size);
      size += bytes.length;
    }
  } catch (error) {
    throw explain(error, host, signal.aborted, options.timeoutMs);
  }
  return size === body.length ? body : body.subarray(0, size);
}

/**
 * Fetches a release archive (contract §6 step 1): through `guardedRequest`; the whole download
 * within the time limit; at most `maxBytes`; only allowed addresses. The bytes stay in memory:
 * nothing is written to disk, so nothing is ever left behind.
 */
export function createDownloader(options: DownloadOptions, agent: GuardedAgent = guardedAgent(options)): Downloader {
  return async (address: string, into?: Buffer) => {
    const signal = AbortSignal.timeout(options.timeoutMs);
    const { response, host } = await guardedRequest(agent, options, address, {
      method: 'GET',
      signal,
      headers: { 'user-agent': 'appstore-release-fetcher', accept: '*/*' },
    });
    if (response.statusCode !== 200) {
      await response.body.dump().catch(() => undefined);
      throw refuse(said`download failed: HTTP ${response.statusCode} from ${host}`);
    }
    return { bytes: await readLimited(response, host, options.maxBytes, 'archive', options, signal, into) };
  };
}
