import { Type } from 'typebox';
import { APP_ID_PATTERN, appIdProblem } from '../../../domain/app-id.ts';
import { AppIdParam } from '../../schemas.ts';

/* What the developer pages' route files share: form and query shapes, and the app id the commands show. */

export const text = (maxLength: number) => Type.String({ maxLength });
export const Form = <T extends Record<string, ReturnType<typeof text>>>(fields: T) =>
  Type.Object(fields, { additionalProperties: true });
export const AppQuery = Type.Object({ app: Type.Optional(text(64)) }, { additionalProperties: true });
export const AppParams = Type.Object({ appId: AppIdParam });
/** An app id as typed into the commands' box: shown in commands only if it looks like one. */
export const commandId = (value: string | undefined): string =>
  value !== undefined && appIdProblem(value.trim()) === null ? value.trim() : '';
/** A certificate's file name: the app id (the one app-id rule, digits included) and `.crt`. */
export const CERTIFICATE_FILE = `${APP_ID_PATTERN.source.slice(0, -1)}\\.crt$`;
