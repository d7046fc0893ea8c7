/**
 * A sentence the store says to a person (a refusal's detail), kept with what a translation needs:
 * its English source with numbered placeholders (`The app {0} is not registered.`) and the values
 * that fill them. The English text is what the API and the CLI show; a page in another language
 * looks the source up in the refusal catalogues (`src/i18n/refusals/`, docs/translations.md).
 *
 * Written with the `said` tag: said`The app ${appId} is not registered.` A value may itself be
 * said (a reason inside a sentence), and is translated with it.
 */
export interface Said {
  /** The English sentence, as the API says it. */
  readonly text: string;
  /** The English source with `{0}`, `{1}`… where the values go: the key of the translations. */
  readonly source: string;
  readonly values: readonly SaidValue[];
}

export type SaidValue = string | number | Said;

/** The tag that makes a Said; anything but a number or a Said becomes its string. */
export function said(strings: TemplateStringsArray, ...values: unknown[]): Said {
  let text = strings[0] ?? '';
  let source = text;
  const kept: SaidValue[] = [];
  values.forEach((value, index) => {
    const one: SaidValue = typeof value === 'number' || isSaid(value) ? value : String(value);
    kept.push(one);
    text += (isSaid(one) ? one.text : String(one)) + (strings[index + 1] ?? '');
    source += `{${index}}${strings[index + 1] ?? ''}`;
  });
  return { text, source, values: kept };
}

/** Told by its shape, so that a sentence kept as JSON (a publish job's refusal) is still one. */
export function isSaid(value: unknown): value is Said {
  if (typeof value !== 'object' || value === null) return false;
  const { text, source, values } = value as Partial<Record<keyof Said, unknown>>;
  return typeof text === 'string' && typeof source === 'string' && Array.isArray(values);
}

/** The English of a sentence that may be said or already a string. */
export function englishOf(value: string | Said): string {
  return typeof value === 'string' ? value : value.text;
}
