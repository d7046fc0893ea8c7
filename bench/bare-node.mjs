// The ceiling of Node on this machine for the listings' two paths: a bare node:http server that
// answers the same 304 and sends the same gzip bytes, with nothing else to do.
// Usage: node bench/bare-node.mjs PORT GZIP_FILE HEADERS_JSON
// HEADERS_JSON: the headers of the store's own 304 for the same address, as an object, without
// those Node adds itself (Date, Connection, Keep-Alive). The 304 is then the store's, byte for
// byte (wrk sends no X-Request-Id, so the store's 304 carries none either).
import fs from 'node:fs';
import http from 'node:http';

const [port, file, headersJson] = process.argv.slice(2);
const gzip = fs.readFileSync(file);
const notModified = JSON.parse(headersJson);
const etag = notModified.etag;
http
  .createServer((request, response) => {
    if (request.headers['if-none-match'] === etag) {
      response.writeHead(304, notModified);
      response.end();
      return;
    }
    response.writeHead(200, {
      ...notModified,
      'content-type': 'application/json; charset=utf-8',
      'content-encoding': 'gzip',
      'content-length': gzip.length,
    });
    response.end(gzip);
  })
  .listen(Number(port), '127.0.0.1');
