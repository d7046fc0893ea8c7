import fs from 'node:fs';

/** A ustar header for a file entry of `size` bytes, its checksum computed: for tar files whose bytes a test leaves sparse. */
export function tarHeader(name: string, size: number): Buffer {
  const header = Buffer.alloc(512);
  const field = (offset: number, length: number, text: string) =>
    header.write(text.padEnd(length, '\0').slice(0, length), offset, 'latin1');
  field(0, 100, name);
  field(100, 8, '0000644');
  field(108, 8, '0000000');
  field(116, 8, '0000000');
  field(124, 12, size.toString(8).padStart(11, '0'));
  field(136, 12, '00000000000');
  header.fill(32, 148, 156);
  header[156] = '0'.charCodeAt(0);
  field(257, 6, 'ustar');
  field(263, 2, '00');
  let sum = 0;
  for (const byte of header) sum += byte;
  field(148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return header;
}

/** A tar of one entry whose header declares `size` bytes, written sparse (the bytes and the end blocks are a hole). */
export function sparseTar(file: string, name: string, size: number): void {
  fs.writeFileSync(file, tarHeader(name, size));
  fs.truncateSync(file, 512 + Math.ceil(size / 512) * 512 + 1024);
}
