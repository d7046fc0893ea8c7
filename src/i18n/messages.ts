import { IntlMessageFormat } from 'intl-messageformat';
import { lazyCatalogues } from './catalogue-files.ts';
import en from './catalogues/en.json' with { type: 'json' };
import type { SiteLanguage } from './site-languages.ts';
import { languageTag } from './site-languages.ts';

/** Every message id: the English catalogue is the reference the others are checked against. */
export type MessageId = keyof typeof en;
export type MessageValues = Readonly<Record<string, string | number>>;
type Group = 'site' | 'dev' | 'admin' | 'mail';
type GroupTexts<G extends Group> = {
  readonly [K in MessageId as K extends `${G}.${infer Rest}` ? Rest : never]: string;
};

/**
 * The catalogues as shipped: ICU MessageFormat, one flat JSON object per language
 * (docs/translations.md). English is bundled (the reference, and what every page falls back to);
 * the others are read when first used.
 */
export const CATALOGUES: Readonly<Record<SiteLanguage, Readonly<Record<string, string>>>> = lazyCatalogues(
  'catalogues',
  ['de', 'fr', 'es', 'it', 'pt_BR', 'zh_CN', 'ja', 'ar'],
  { en },
);

/**
 * The site's messages in one language. A message the language's catalogue lacks falls back to
 * English (the catalogue test makes sure none does when shipped). Each message is compiled once,
 * on first use, and formats numbers and plurals by the language's rules.
 */
export class Messages {
  private readonly compiled = new Map<string, IntlMessageFormat>();
  private readonly tag: string;

  constructor(
    readonly language: SiteLanguage,
    private readonly catalogue: Readonly<Record<string, string>> = CATALOGUES[language],
  ) {
    this.tag = languageTag(language);
  }

  private compiledOf(id: MessageId): IntlMessageFormat {
    let message = this.compiled.get(id);
    if (message === undefined) {
      const own = this.catalogue[id];
      message =
        own === undefined
          ? new IntlMessageFormat(en[id], 'en', undefined, { ignoreTag: true })
          : new IntlMessageFormat(own, this.tag, undefined, { ignoreTag: true });
      this.compiled.set(id, message);
    }
    return message;
  }

  /** The message `id` with its placeholders filled. */
  format(id: MessageId, values?: MessageValues): string {
    return String(this.compiledOf(id).format(values));
  }

  /**
   * The message `id` whose tags (`<link>the tokens page</link>`) are given to `tags`: its parts, as
   * strings and as what the tags made, for the caller to join (the pages escape the strings).
   */
  formatTagged<T>(
    id: MessageId,
    tags: Readonly<Record<string, (chunks: Array<string | T>) => T>>,
    values?: MessageValues,
  ): Array<string | T> {
    const key = `${id} tagged`;
    let message = this.compiled.get(key);
    if (message === undefined) {
      message = new IntlMessageFormat(this.catalogue[id] ?? en[id], this.catalogue[id] === undefined ? 'en' : this.tag);
      this.compiled.set(key, message);
    }
    const parts = message.format<T>({ ...values, ...tags } as Record<string, never>);
    return Array.isArray(parts) ? (parts as Array<string | T>) : [parts as string | T];
  }

  /** Every message of a group without placeholders or tags, by its name within the group (`site.search` → `search`). */
  group<G extends Group>(group: G): GroupTexts<G> {
    const texts: Record<string, string> = {};
    const prefix = `${group}.`;
    for (const id of Object.keys(en) as MessageId[]) {
      if (id.startsWith(prefix) && !/[{]|<\w+>/.test(en[id])) texts[id.slice(prefix.length)] = this.format(id);
    }
    return texts as GroupTexts<G>;
  }
}

const made = new Map<SiteLanguage, Messages>();

/** The messages of a shipped language, made once. */
export function messagesFor(language: SiteLanguage): Messages {
  let messages = made.get(language);
  if (messages === undefined) {
    messages = new Messages(language);
    made.set(language, messages);
  }
  return messages;
}
