import { said } from '../../i18n/said.ts';
import { AppError } from '../../errors.ts';
import type { Acting } from '../audit/audit.ts';
import type { User } from '../accounts/user.ts';
import type { PublishDeps, PublishOrigin, PublishResult } from './publish-release.ts';
import {
  admitPublisher,
  arrive,
  checkAndSave,
  checkSignatureField,
  countPublish,
  notifyFailure,
} from './publish-release.ts';

/**
 * `POST /api/v1/apps/releases` with the archive itself (multipart/form-data, issue 52): what a CI
 * job sends when it has no web host for the archive. The same checks and statuses as a publish
 * from a URL, in the same order once the bytes are here; the archive is always kept (the store is
 * the only place it can be downloaded from).
 */

/** What the form held: the archive (read into the buffer given), the signature, the nightly flag. */
export interface UploadedForm {
  readonly bytes: Buffer;
  readonly signature: string | undefined;
  readonly nightly: boolean;
}

/** Reads the request's form, the archive into `into` (refusing more than `maxBytes`). */
export type UploadReader = (into: Buffer) => Promise<UploadedForm>;

export async function publishUpload(
  read: UploadReader,
  user: User,
  acting: Acting,
  deps: PublishDeps,
  origin: PublishOrigin = 'api',
): Promise<PublishResult> {
  // A place among the publishes under way before a byte is read: uploads hold memory as
  // downloads do (publish-slots.ts).
  const slot = await admitPublisher(user, deps);
  try {
    const [form, arrival] = await arrive(slot, () => read(slot.buffer()));
    if (form.signature === undefined || form.signature === '')
      throw new AppError(
        'invalid_request',
        said`Invalid request body: signature: This field is required (curl -F signature="$(openssl dgst -sha512 -sign APP.key APP.tar.gz | openssl base64 -A)").`,
        { signature: [said`This field is required.`] },
      );
    const signature = checkSignatureField(form.signature);
    // Counted once the form is sound: a malformed one does not use up the day's publishes.
    await countPublish(user, deps);
    return await checkAndSave(
      { bytes: form.bytes, signature, nightly: form.nightly, developerDownload: null },
      user,
      acting,
      deps,
      arrival,
    );
  } catch (error) {
    await notifyFailure(
      user,
      `${origin === 'api' ? 'through the API' : 'on the publish page'}, an uploaded archive`,
      error,
      deps,
    );
    throw error;
  } finally {
    slot.release();
  }
}
