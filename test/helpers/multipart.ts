/** A multipart/form-data body as a browser or curl sends it. */
export function multipartForm(parts: ReadonlyArray<{ name: string; value: string | Buffer; filename?: string }>): {
  payload: Buffer;
  headers: Record<string, string>;
} {
  const boundary = `----appstore${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
    const type = part.filename === undefined ? '' : 'Content-Type: application/gzip\r\n';
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`));
    chunks.push(Buffer.isBuffer(part.value) ? part.value : Buffer.from(part.value));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}
