import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

/**
 * A browser stand-in over `inject`: keeps cookies, follows nothing by itself, and finds the CSRF
 * token of the last page's forms, so tests post forms as a person's browser does.
 */
export class WebClient {
  readonly cookies = new Map<string, string>();
  last: LightMyRequestResponse | undefined;

  constructor(
    private readonly app: FastifyInstance,
    private readonly address = '127.0.0.1',
  ) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private keep(response: LightMyRequestResponse): LightMyRequestResponse {
    for (const cookie of response.cookies as Array<{ name: string; value: string; maxAge?: number }>) {
      if (cookie.value === '' || cookie.maxAge === 0) this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
    this.last = response;
    return response;
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    return this.keep(
      await this.app.inject({
        method: 'GET',
        url,
        remoteAddress: this.address,
        headers: { accept: 'text/html', cookie: this.cookieHeader() },
      }),
    );
  }

  /** Posts a form; the CSRF token of the last page is added unless the fields give one (or `null` to leave it out). */
  async post(
    url: string,
    fields: Record<string, string>,
    csrf: string | null | undefined = undefined,
    headers: Record<string, string> = {},
  ): Promise<LightMyRequestResponse> {
    const token = csrf === undefined ? this.csrfToken() : csrf;
    const body = new URLSearchParams({ ...fields, ...(token === null ? {} : { csrf_token: token }) }).toString();
    return this.keep(
      await this.app.inject({
        method: 'POST',
        url,
        remoteAddress: this.address,
        headers: {
          accept: 'text/html',
          cookie: this.cookieHeader(),
          'content-type': 'application/x-www-form-urlencoded',
          ...headers,
        },
        payload: body,
      }),
    );
  }

  /** Posts a multipart form (an upload) as built by `multipartForm`, the fields in its order. */
  async postMultipart(
    url: string,
    form: { payload: Buffer; headers: Record<string, string> },
  ): Promise<LightMyRequestResponse> {
    return this.keep(
      await this.app.inject({
        method: 'POST',
        url,
        remoteAddress: this.address,
        headers: { accept: 'text/html', cookie: this.cookieHeader(), ...form.headers },
        payload: form.payload,
      }),
    );
  }

  /** The CSRF token in the last page's forms. */
  csrfToken(): string {
    const match = /name="csrf_token" value="([^"]+)"/.exec(this.last?.body ?? '');
    if (match?.[1] === undefined)
      throw new Error(
        `the last page has no form with a CSRF token: ${this.last?.body.slice(0, 300) ?? '(no page yet)'}`,
      );
    return match[1];
  }
}
