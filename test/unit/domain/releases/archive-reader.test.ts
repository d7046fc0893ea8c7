import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../../../src/errors.ts';
import { archive } from '../../../helpers/release-fixtures.ts';
import { readAppArchive } from '../../../../src/domain/releases/archive-reader.ts';

async function refused(name: string, message: RegExp): Promise<void> {
  await assert.rejects(readAppArchive(archive(name)), (error: unknown) => {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.code, 'invalid_archive');
    assert.match(error.detail, message);
    return true;
  });
}

describe('readAppArchive', () => {
  test('a valid archive: folder, info.xml and changelogs by language', async () => {
    const result = await readAppArchive(archive('valid.tar.gz'));
    assert.equal(result.folder, 'news');
    assert.match(result.infoXml.toString(), /<id>news<\/id>/);
    assert.deepEqual([...result.changelogs.keys()].sort(), ['de', 'en', 'fr']);
  });

  test('./ prefixes are normalised; a git-archive pax global header is no member', async () => {
    assert.equal((await readAppArchive(archive('dot-slash.tar.gz'))).folder, 'news');
    assert.equal((await readAppArchive(archive('pax-global-header.tar.gz'))).folder, 'news');
  });

  test('not a gzip-compressed tar: says what it is', async () => {
    await refused('empty.zip.tar.gz', /^this is a zip file; a gzip-compressed tar archive \(\.tar\.gz\) is required$/);
    await refused('plain.tar.gz', /uncompressed tar archive; compress it with gzip/);
    await refused('garbage.tar.gz', /not a gzip-compressed tar archive/);
    await refused('truncated.tar.gz', /truncated/);
    await refused('gzip-not-tar.tar.gz', /does not hold a tar archive|truncated/);
    await assert.rejects(readAppArchive(Buffer.alloc(0)), /empty/);
  });

  test('an error page instead of the archive (a mistyped URL answered 200): its size and first bytes, and what to check', async () => {
    const page = Buffer.from("<HTML><BODY>\n<PRE>\nError opening 'walkthrough/myap.tar.gz'\n</PRE></BODY></HTML>\n");
    await assert.rejects(readAppArchive(page), (error: Error) => {
      assert.match(
        error.message,
        /not a gzip-compressed tar archive \(\.tar\.gz\) but 80 bytes of HTML, beginning "<HTML><BODY> <PRE> Error opening 'walkthrough\/myap\.tar\.gz'/,
      );
      assert.match(error.message, /check the download URL .*, or the file uploaded/);
      return true;
    });
    await assert.rejects(readAppArchive(Buffer.from('Not Found')), /9 bytes of text, beginning "Not Found"/);
    await assert.rejects(
      readAppArchive(Buffer.from([0x00, 0x01, 0x02, 0xff, 0xfe, 0x10, 0x11, 0x12, 0x13])),
      /9 bytes that start with 000102fffe101112/,
    );
  });

  test('one top-level folder named like an app id', async () => {
    await refused('two-folders.tar.gz', /more than one top-level folder \(news, notes\)/);
    await refused('top-level-file.tar.gz', /^README is a file at the top level/);
    await refused('uppercase-folder.tar.gz', /top-level folder 'News' is not named like an app id/);
  });

  test('links, devices, FIFOs, absolute paths, .. and .git are refused, naming the member', async () => {
    await refused(
      'symlink-info-xml.tar.gz',
      /^member news\/appinfo\/info\.xml is a symbolic link \(to "\.\.\/\.\.\/real-info\.xml"\)/,
    );
    await refused('symlink-appinfo.tar.gz', /^member news\/appinfo is a symbolic link/);
    await refused('hardlink.tar.gz', /is a hard link/);
    await refused('fifo.tar.gz', /^member news\/pipe is a fifo/);
    await refused('device.tar.gz', /^member news\/null is a character-device/);
    await refused('absolute-path.tar.gz', /"\/etc\/news-evil" has an absolute path/);
    await refused('dot-dot.tar.gz', /"news\/\.\.\/\.\.\/evil" has '\.\.' in its path/);
    await refused('git-directory.tar.gz', /^news\/\.git is a \.git directory/);
  });

  test('info.xml: required, once, smaller than 512 KiB; changelogs at most 1 MiB', async () => {
    await refused('no-info-xml.tar.gz', /^news\/appinfo\/info\.xml is missing$/);
    await refused('duplicate-info-xml.tar.gz', /appears twice/);
    await refused('info-xml-too-large.tar.gz', /^news\/appinfo\/info\.xml must be smaller than 512 KiB$/);
    await refused('info-xml-100mb.tar.gz', /must be smaller than 512 KiB/);
    await refused('changelog-too-large.tar.gz', /^news\/CHANGELOG\.md may be at most 1 MiB$/);
  });

  test('a decompression bomb is refused at the inflation bound', async () => {
    await refused('bomb-1gib.tar.gz', /inflates to more than 256 MiB; is it a decompression bomb\?/);
    await assert.rejects(
      readAppArchive(archive('bomb-1gib.tar.gz'), {
        maxInflatedBytes: 1024 * 1024,
        maxInfoXmlBytes: 512 * 1024,
        maxChangelogBytes: 1024 * 1024,
        maxIconBytes: 1024,
      }),
      /inflates to more than 1 MiB/,
    );
  });
});
