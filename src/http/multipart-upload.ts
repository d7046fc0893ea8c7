import { said } from '../i18n/said.ts';
import type { Said } from '../i18n/said.ts';
import type { Multipart } from '@fastify/multipart';
import type { UploadReader } from '../domain/releases/publish-upload.ts';
import { AppError, isAppError } from '../errors.ts';

const mib = (bytes: number): string => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;

/** The form's limits for @fastify/multipart: one file, a few short fields. */
export const uploadLimits = (maxArchiveBytes: number) => ({
  // One byte over the limit is read, so that the reader below refuses it with its own words.
  fileSize: maxArchiveBytes + 1,
  files: 1,
  fields: 8,
  fieldSize: 70_000,
  parts: 10,
  headerPairs: 50,
});

const invalid = (field: string, message: Said): AppError =>
  new AppError('invalid_request', said`Invalid request body: ${field}: ${message}`, { [field]: [message] });

/** A failure while reading a form, as the client's mistake it is (busboy's own errors carry no status). */
export function formError(error: unknown): AppError {
  if (isAppError(error)) return error;
  const { code, message } = error as { code?: string; message?: string };
  if (code === 'FST_FILES_LIMIT') return invalid('archive', said`send one archive per publish.`);
  return new AppError(
    'invalid_request',
    said`The body could not be read as a form (multipart/form-data): ${String(message ?? error).slice(0, 160)}. Send the archive with curl -F archive=@APP.tar.gz -F signature=…`,
  );
}

/** The first part of a streamed form, when it is a field: the page's form token. */
export async function firstField(
  parts: AsyncIterableIterator<Multipart>,
): Promise<{ readonly name: string; readonly value: unknown } | null> {
  let first: IteratorResult<Multipart>;
  try {
    first = await parts.next();
  } catch (error) {
    throw formError(error);
  }
  if (first.done === true) return null;
  if (first.value.type === 'file') {
    first.value.file.resume();
    return null;
  }
  return { name: first.value.fieldname, value: first.value.value };
}

/** A form field's truthiness, as curl -F sends it. */
function parseNightly(value: string): boolean {
  const v = value.trim().toLowerCase();
  if (v === 'true' || v === '1' || v === 'on' || v === 'yes') return true;
  if (v === 'false' || v === '0' || v === 'off' || v === 'no' || v === '') return false;
  throw invalid('nightly', said`expected true or false, not '${value.slice(0, 20)}'.`);
}

/**
 * Reads a publish form (multipart/form-data: `archive` the file, `signature`, `nightly`) as it
 * streams in: the archive is copied into the buffer given (the publish slot's), and refused at
 * the first byte over `maxBytes`; other fields are kept; unknown ones are ignored, as in the JSON
 * body. A body that is not a well-formed form is a 400 naming what was wrong.
 */
export function multipartUploadReader(parts: AsyncIterableIterator<Multipart>, maxBytes: number): UploadReader {
  return async (into) => {
    let bytes: Buffer | null = null;
    let signature: string | undefined;
    let nightly = false;
    try {
      for await (const part of parts) {
        if (part.type === 'file') {
          if (part.fieldname !== 'archive') {
            part.file.resume();
            throw invalid(
              'archive',
              said`the archive goes in a file field named "archive" (curl -F archive=@APP.tar.gz); this file came as "${part.fieldname.slice(0, 40)}".`,
            );
          }
          let size = 0;
          for await (const chunk of part.file as AsyncIterable<Buffer>) {
            if (size + chunk.length > maxBytes || size + chunk.length > into.length)
              throw new AppError(
                'invalid_archive',
                said`The archive is larger than ${mib(maxBytes)}, the most this store takes (APPSTORE_MAX_ARCHIVE_MIB).`,
              );
            chunk.copy(into, size);
            size += chunk.length;
          }
          bytes = into.subarray(0, size);
        } else if (part.fieldname === 'signature') {
          signature = String(part.value).trim();
        } else if (part.fieldname === 'nightly') {
          nightly = parseNightly(String(part.value));
        }
      }
    } catch (error) {
      throw formError(error);
    }
    if (bytes === null)
      throw invalid('archive', said`This field is required: the archive as a file (curl -F archive=@APP.tar.gz).`);
    return { bytes, signature, nightly };
  };
}
