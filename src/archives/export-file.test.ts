import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, describe, test } from 'node:test';
import tar from 'tar-stream';
import { isAppError } from '../errors.ts';
import { createExportFile, openExportFile } from './export-file.ts';

const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'appstore-export-file-'));
after(() => fs.rmSync(directory, { recursive: true, force: true }));
const SHA = 'ab'.repeat(32);

async function tarOf(
  entries: { name: string; body?: string; type?: 'file' | 'symlink' | 'directory'; linkname?: string }[],
): Promise<Buffer> {
  const pack = tar.pack();
  for (const entry of entries)
    pack.entry(
      {
        name: entry.name,
        type: entry.type ?? 'file',
        ...(entry.linkname === undefined ? {} : { linkname: entry.linkname }),
      },
      entry.body ?? '',
    );
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const refusal = async (bytes: Buffer, pattern: RegExp): Promise<void> => {
  const file = path.join(directory, `case-${Math.random().toString(36).slice(2)}.tar`);
  fs.writeFileSync(file, bytes);
  await assert.rejects(
    openExportFile(file),
    (error: unknown) => isAppError(error) && error.code === 'invalid_mirror_file' && pattern.test(error.detail),
  );
};

describe('export file (tar)', () => {
  test('what is written is read back: names, sizes, bytes and SHA-256, streamed entries included; the file appears only when finished', async () => {
    const file = path.join(directory, 'written.tar');
    const sink = createExportFile(file);
    await sink.add('manifest.json', 2, Buffer.from('{}'));
    await sink.add(`archives/ab/${SHA}.tar.gz`, 1500, Readable.from([Buffer.alloc(1000, 1), Buffer.alloc(500, 2)]));
    await sink.add('documents/apps.json', 0, Buffer.alloc(0));
    assert.equal(fs.existsSync(file), false);
    await sink.finish();
    const source = await openExportFile(file);
    assert.deepEqual(
      [...source.entries],
      [
        ['manifest.json', 2],
        [`archives/ab/${SHA}.tar.gz`, 1500],
        ['documents/apps.json', 0],
      ],
    );
    assert.equal((await source.read('manifest.json')).toString(), '{}');
    assert.deepEqual(
      await source.read(`archives/ab/${SHA}.tar.gz`),
      Buffer.concat([Buffer.alloc(1000, 1), Buffer.alloc(500, 2)]),
    );
    assert.equal(
      await source.sha256('documents/apps.json'),
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    assert.deepEqual(
      fs.readdirSync(directory).filter((name) => name.includes('partial')),
      [],
    );
  });

  test('an abandoned export leaves no file', async () => {
    const file = path.join(directory, 'abandoned.tar');
    const sink = createExportFile(file);
    await sink.add('manifest.json', 2, Buffer.from('{}'));
    await sink.abandon();
    assert.equal(fs.existsSync(file), false);
    assert.deepEqual(
      fs.readdirSync(directory).filter((name) => name.startsWith('abandoned')),
      [],
    );
  });

  test('links, directories, names an export never has, a damaged header and a missing end are refused', async () => {
    await refusal(
      await tarOf([{ name: 'manifest.json', type: 'symlink', linkname: '/etc/passwd' }]),
      /holds "manifest.json", which an export never does/,
    );
    await refusal(await tarOf([{ name: 'documents', type: 'directory' }]), /which an export never does/);
    await refusal(await tarOf([{ name: '../../etc/cron.d/x', body: 'x' }]), /holds "..\/..\/etc\/cron.d\/x"/);
    await refusal(
      await tarOf([
        { name: 'manifest.json', body: 'a' },
        { name: 'manifest.json', body: 'b' },
      ]),
      /manifest.json appears twice/,
    );
    const good = await tarOf([{ name: 'manifest.json', body: '{}' }]);
    const damaged = Buffer.from(good);
    damaged[10] = 0x41;
    await refusal(damaged, /the tar header at byte 0 is damaged/);
    await refusal(good.subarray(0, 1024), /no end: it was cut short/);
    await refusal(good.subarray(0, 512), /runs past the end of the file|no end/);
  });

  test('a file that is not there, or not a file, says so', async () => {
    await assert.rejects(openExportFile(path.join(directory, 'nowhere.tar')), /nowhere\.tar does not exist/);
    await assert.rejects(openExportFile(directory), /is not a regular file: give the path of an export file/);
  });
});
