import { joinChunks } from '../../../helpers/listing-bytes.ts';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import zlib from 'node:zlib';
import { describe, test } from 'node:test';
import {
  assembleGzip,
  brotliFromGzip,
  combineCrc,
  compressPart,
  gunzipStream,
  literalPart,
  partText,
  textLength,
} from '../../../../src/domain/listings/gzip-parts.ts';

const texts = [
  '[',
  '{"id":"a","text":"' + 'hello '.repeat(2000) + '"}',
  ',',
  randomBytes(70_000).toString('base64'),
  ',',
  '{"é":"ünïcödé ✓"}',
  ']',
];

describe('gzip bodies assembled from parts', () => {
  test('CRC-32 of a concatenation from the pieces', () => {
    for (const [a, b] of [
      [Buffer.from('abc'), Buffer.from('defgh')],
      [randomBytes(100_000), randomBytes(3)],
      [Buffer.alloc(0), Buffer.from('x')],
      [Buffer.from('x'), Buffer.alloc(0)],
    ] as const) {
      assert.equal(combineCrc(zlib.crc32(a), zlib.crc32(b), b.length), zlib.crc32(Buffer.concat([a, b])));
    }
  });

  test('decodes to the concatenated text, with zlib, at every level, mixing literal and compressed parts', async () => {
    for (const level of [1, 6, 9]) {
      const parts = await Promise.all(
        texts.map((t, i) => (i % 2 === 0 ? Promise.resolve(literalPart(t)) : compressPart(Buffer.from(t), level))),
      );
      const body = joinChunks(assembleGzip(parts));
      assert.equal(zlib.gunzipSync(body).toString(), texts.join(''));
      assert.equal(textLength(parts), Buffer.byteLength(texts.join('')));
    }
  });

  test('an empty list of parts is a valid empty body', () => {
    assert.equal(zlib.gunzipSync(joinChunks(assembleGzip([]))).length, 0);
  });

  test('the system gzip tool accepts it and checks its CRC (gzip -t)', async (t) => {
    const parts = await Promise.all(texts.map((text) => compressPart(Buffer.from(text), 6)));
    const body = joinChunks(assembleGzip(parts));
    let tool: Buffer;
    try {
      tool = execFileSync('gzip', ['-dc'], { input: body });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return t.skip('gzip is not installed');
      throw error;
    }
    assert.equal(tool.toString(), texts.join(''));
    execFileSync('gzip', ['-t'], { input: body });
  });

  test('a corrupted part is caught by the CRC', async () => {
    const parts = [await compressPart(Buffer.from('hello world '.repeat(100)), 6)];
    const wrong = [{ ...parts[0]!, crc: (parts[0]!.crc ^ 1) >>> 0 }];
    assert.throws(() => zlib.gunzipSync(joinChunks(assembleGzip(wrong))), /incorrect data check|unexpected end/i);
  });

  test("a body is its parts' own buffers: nothing copied; it streams back to its text, and to brotli", async () => {
    const parts = await Promise.all(texts.map((text) => compressPart(Buffer.from(text), 6)));
    const body = assembleGzip(parts);
    parts.forEach((part, i) => assert.equal(body.chunks[i + 1], part.deflated, `part ${i} sent as its own buffer`));
    assert.equal(
      body.byteLength,
      body.chunks.reduce((sum, chunk) => sum + chunk.length, 0),
    );
    const streamed: Buffer[] = [];
    for await (const chunk of gunzipStream(body)) streamed.push(chunk as Buffer);
    assert.equal(Buffer.concat(streamed).toString(), texts.join(''));
    const br = await brotliFromGzip(body, 5, textLength(parts));
    assert.equal(zlib.brotliDecompressSync(br).toString(), texts.join(''));
  });

  test('a part decompresses on its own', async () => {
    const text = Buffer.from('{"a":' + '1,'.repeat(5000) + '2}');
    assert.deepEqual(await partText(await compressPart(text, 6)), text);
  });
});
