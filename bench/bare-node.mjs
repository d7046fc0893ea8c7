// The ceiling of Node on this machine for the listings' two paths: a bare node:http server that
// answers the same 304 (same headers) and sends the same gzip bytes, with nothing else to do.
// Usage: node bench/bare-node.mjs PORT GZIP_FILE ETAG
import fs from 'node:fs';
import http from 'node:http';

const [port, file, etag] = process.argv.slice(2);
const gzip = fs.readFileSync(file);
const lastModified = new Date().toUTCString();
const common = { etag, 'last-modified': lastModified, vary: 'Accept-Encoding', 'cache-control': 'public, no-cache', 'access-control-allow-origin': '*', 'x-content-type-options': 'nosniff' };
http
  .createServer((request, response) => {
    if (request.headers['if-none-match'] === etag) {
      response.writeHead(304, { ...common, 'x-request-id': 'bare' });
      response.end();
      return;
    }
    response.writeHead(200, { ...common, 'content-type': 'application/json; charset=utf-8', 'content-encoding': 'gzip', 'content-length': gzip.length });
    response.end(gzip);
  })
  .listen(Number(port), '127.0.0.1');
