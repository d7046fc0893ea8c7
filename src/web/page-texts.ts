import type { MessageId, MessageValues } from '../i18n/messages.ts';
import { messagesFor } from '../i18n/messages.ts';
import type { SiteLanguage } from '../i18n/site-languages.ts';
import type { Html } from './html.ts';
import { html } from './html.ts';
import { languageTag, textDirection } from '../i18n/site-languages.ts';
import type { AdminStrings, DevStrings } from './developer-strings.ts';
import { adminStrings, devStrings } from './developer-strings.ts';
import type { SiteStrings } from './strings.ts';
import { siteStrings } from './strings.ts';

/** A page's own text in the visitor's language: what the layout and every page read their words from. */
export interface PageTexts {
  readonly language: SiteLanguage;
  /** The language as HTML's lang attribute and Intl write it (`pt-BR`). */
  readonly tag: string;
  readonly dir: 'ltr' | 'rtl';
  readonly site: SiteStrings;
  readonly dev: DevStrings;
  readonly admin: AdminStrings;
  /** A message with tags as HTML: each tag's content wrapped by `tags` (a link, say), every text escaped. */
  tagged(id: MessageId, tags: Readonly<Record<string, (inner: Html) => Html>>, values?: MessageValues): Html;
}

const made = new Map<SiteLanguage, PageTexts>();

export function pageTexts(language: SiteLanguage): PageTexts {
  let texts = made.get(language);
  if (texts === undefined) {
    texts = {
      language,
      tag: languageTag(language),
      dir: textDirection(language),
      get site() {
        return siteStrings(language);
      },
      get dev() {
        return devStrings(language);
      },
      get admin() {
        return adminStrings(language);
      },
      tagged: (id, tags, values) => {
        const wrap = Object.fromEntries(
          Object.entries(tags).map(([tag, make]) => [tag, (chunks: Array<string | Html>) => make(html`${chunks}`)]),
        );
        return html`${messagesFor(language).formatTagged<Html>(id, wrap, values)}`;
      },
    };
    made.set(language, texts);
  }
  return texts;
}

/**
 * The lang and dir attributes of a text in `language` (an app's name, description, changelog, a
 * comment): app texts are often in another language than the page, and an English description
 * on an Arabic page must still read left to right.
 */
export function textLanguage(language: string): Html {
  return html` lang="${languageTag(language)}" dir="${textDirection(language)}"`;
}
