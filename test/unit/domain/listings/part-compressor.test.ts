import { joinChunks } from '../../../helpers/listing-bytes.ts';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import { describe, test } from 'node:test';
import { assembleGzip, literalPart, partText } from '../../../../src/domain/listings/gzip-parts.ts';
import { PartCompressor } from '../../../../src/domain/listings/part-compressor.ts';

// Texts of every size that matters: tiny, one output chunk, several chunks (random bytes do
// not compress: 300 KB of base64 is five 64 KiB chunks), repeated text, and none at all.
const texts = [
  '{"id":"a"}',
  '{"text":"' + 'hello '.repeat(3000) + '"}',
  randomBytes(300_000).toString('base64'),
  '{"é":"ünïcödé ✓"}',
  '',
  randomBytes(20_000).toString('hex'),
  'x',
];

describe('parts compressed on long-lived deflate streams', () => {
  test('each part is its own text, and the parts of all the lanes assemble into one gzip body', async () => {
    for (const lanes of [1, 3]) {
      const compressor = new PartCompressor(6, lanes);
      // All asked for at once: the lanes take them in turns, and each must come back with its own output.
      const parts = await Promise.all(texts.map((text) => compressor.compress(Buffer.from(text))));
      compressor.close();
      for (const [i, part] of parts.entries()) {
        const text = Buffer.from(texts[i] ?? '');
        assert.equal(part.length, text.length);
        assert.equal(part.crc, zlib.crc32(text));
        assert.deepEqual(await partText(part), text, `part ${i} on ${lanes} lanes decompresses on its own`);
        // A buffer of its own size, not a view of the stream's output chunk.
        assert.equal(part.deflated.buffer.byteLength, part.deflated.length);
      }
      const body = joinChunks(assembleGzip([literalPart('['), ...parts, literalPart(']')]));
      assert.equal(zlib.gunzipSync(body).toString(), `[${texts.join('')}]`);
    }
  });

  test('a closed compressor refuses new parts, and finishes those already asked for', async () => {
    const compressor = new PartCompressor(6, 1);
    const pending = compressor.compress(Buffer.from('still done'));
    compressor.close();
    assert.equal((await partText(await pending)).toString(), 'still done');
    await assert.rejects(compressor.compress(Buffer.from('too late')), /closed/);
  });
});
