import { englishOf } from '../../i18n/said.ts';
import { webAddressProblem } from '../encodings.ts';
import { add, checkUnknownKeys, isObject, refuse } from '../import-problems.ts';
import type { Problems } from '../import-problems.ts';

/**
 * discover.json: what a Nextcloud server shows in its "Discover" section. The shapes follow the
 * JSON Schema the original store validates uploads against (app-discover.schema.json, draft
 * 2020-12), plus this store's rules: every URL is HTTPS, a showcase names apps the store has,
 * each entry has a unique id, and unknown fields are refused (a misspelt `expirydate` would
 * otherwise be served and ignored).
 */
export type LocalizedText = Readonly<Record<string, string>>;

export interface MediaContent {
  readonly src: string;
  readonly alt: string;
  readonly link?: string;
}

export interface MediaObject {
  readonly content: MediaContent;
  /** Required in a list of media (one per language). */
  readonly language?: string;
  readonly alignment?: 'start' | 'end' | 'center';
}

interface Common {
  readonly id?: string;
  /** Entries with an order come first, by it; the others are shown shuffled. */
  readonly order?: number;
  readonly headline?: LocalizedText;
  readonly text?: LocalizedText;
  /** https://… or app://APP_ID. */
  readonly link?: string;
  readonly date?: string;
  readonly expiryDate?: string;
}

export interface PostEntry extends Common {
  readonly type: 'post';
  readonly media?: MediaObject | readonly MediaObject[];
}

export interface AppItem {
  readonly type: 'app';
  readonly appId: string;
}

export interface ShowcaseEntry extends Common {
  readonly type: 'showcase';
  readonly content: ReadonlyArray<AppItem | PostEntry>;
}

export interface CarouselEntry extends Common {
  readonly type: 'carousel';
  readonly content: readonly PostEntry[];
}

/** A top-level entry: its id is required there. */
export type DiscoverEntry = (PostEntry | ShowcaseEntry | CarouselEntry) & { readonly id: string };

const LANGUAGE_TAG = /^[a-z]{2,3}(_[a-z]+)?$/;
/** RFC 3339 date-time, as JSON Schema's `date-time` format: a date, a time and an offset. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const ID_MAX = 200;
const TEXT_MAX = 10_000;
const COMMON_FIELDS = ['type', 'id', 'order', 'headline', 'text', 'link', 'date', 'expiryDate'] as const;

/** What the checks need to know about the store. */
export interface DiscoverContext {
  readonly appExists: (appId: string) => boolean;
}

/**
 * Validates a whole discover file (`appstore discover import`); every problem is named by entry
 * and field, and nothing is imported when there is any.
 */
export function parseDiscoverFile(data: unknown, context: DiscoverContext): DiscoverEntry[] {
  const problems: Problems = {};
  if (!Array.isArray(data))
    refuse('discover', { '(file)': ['must be a JSON array of entries (post, showcase, carousel)'] });
  const seen = new Map<string, number>();
  const entries: DiscoverEntry[] = [];
  data.forEach((value: unknown, index) => {
    const where = `[${index}]`;
    const entry = parseEntry(value, where, problems, context, ['post', 'showcase', 'carousel']);
    if (entry === null || entry.type === 'app') return;
    if (entry.id === undefined) {
      add(problems, `${where}.id`, 'is required: a unique id for the entry (a UUID is recommended)');
      return;
    }
    const earlier = seen.get(entry.id);
    if (earlier !== undefined) add(problems, `${where}.id`, `duplicate of entry [${earlier}] ('${entry.id}')`);
    else seen.set(entry.id, index);
    entries.push(entry as DiscoverEntry);
  });
  if (Object.keys(problems).length > 0) refuse('discover', problems);
  return entries;
}

type EntryType = 'post' | 'showcase' | 'carousel' | 'app';

function parseEntry(
  value: unknown,
  where: string,
  problems: Problems,
  context: DiscoverContext,
  types: readonly EntryType[],
): PostEntry | ShowcaseEntry | CarouselEntry | AppItem | null {
  if (!isObject(value)) {
    add(problems, where, `must be an object with a type (${types.join(', ')})`);
    return null;
  }
  const type = types.find((known) => known === value['type']);
  if (type === undefined) {
    add(problems, `${where}.type`, `must be one of ${types.join(', ')}`);
    return null;
  }
  if (type === 'app') {
    checkUnknownKeys(value, ['type', 'appId'], where, problems);
    const appId = value['appId'];
    if (typeof appId !== 'string' || appId === '')
      add(problems, `${where}.appId`, 'must be the id of an app of this store');
    else if (!context.appExists(appId))
      add(problems, `${where}.appId`, `there is no app '${appId.slice(0, 64)}' in this store`);
    return typeof appId === 'string' ? { type: 'app', appId } : null;
  }
  const common = parseCommon(value, where, problems, context);
  if (type === 'post') {
    checkUnknownKeys(value, [...COMMON_FIELDS, 'media'], where, problems);
    const media = value['media'] === undefined ? undefined : parseMedia(value['media'], `${where}.media`, problems);
    return { type, ...common, ...(media === undefined || media === null ? {} : { media }) };
  }
  checkUnknownKeys(value, [...COMMON_FIELDS, 'content'], where, problems);
  const content = value['content'];
  const itemTypes: EntryType[] = type === 'showcase' ? ['app', 'post'] : ['post'];
  if (!Array.isArray(content) || content.length < 2) {
    add(problems, `${where}.content`, `must be a list of at least 2 items (${itemTypes.join(' or ')})`);
    return null;
  }
  const items = content.map((item: unknown, index) =>
    parseEntry(item, `${where}.content[${index}]`, problems, context, itemTypes),
  );
  if (items.some((item) => item === null)) return null;
  return type === 'showcase'
    ? { type, ...common, content: items as Array<AppItem | PostEntry> }
    : { type, ...common, content: items as PostEntry[] };
}

function parseCommon(
  value: Record<string, unknown>,
  where: string,
  problems: Problems,
  context: DiscoverContext,
): Common {
  const common: { -readonly [K in keyof Common]: Common[K] } = {};
  const id = value['id'];
  if (id !== undefined) {
    if (typeof id !== 'string' || id.trim() === '' || id.length > ID_MAX)
      add(problems, `${where}.id`, `must be a non-empty string of at most ${ID_MAX} characters`);
    else common.id = id;
  }
  const order = value['order'];
  if (order !== undefined) {
    if (typeof order !== 'number' || !Number.isSafeInteger(order))
      add(problems, `${where}.order`, 'must be a whole number');
    else common.order = order;
  }
  for (const field of ['headline', 'text'] as const) {
    if (value[field] === undefined) continue;
    const text = parseLocalized(value[field], `${where}.${field}`, problems);
    if (text !== null) common[field] = text;
  }
  const link = value['link'];
  if (link !== undefined) {
    const problem = typeof link === 'string' ? linkProblem(link, context) : 'must be a string';
    if (problem === null) common.link = link as string;
    else add(problems, `${where}.link`, problem);
  }
  for (const field of ['date', 'expiryDate'] as const) {
    const date = value[field];
    if (date === undefined) continue;
    if (typeof date !== 'string' || !DATE_TIME.test(date) || Number.isNaN(Date.parse(date))) {
      add(
        problems,
        `${where}.${field}`,
        'must be a date and time with its offset (RFC 3339), such as 2026-12-01T00:00:00Z',
      );
    } else common[field] = date;
  }
  return common;
}

function parseLocalized(value: unknown, where: string, problems: Problems): LocalizedText | null {
  if (!isObject(value)) {
    add(problems, where, 'must be an object of texts by language, with at least "en": {"en": "…", "de": "…"}');
    return null;
  }
  let valid = true;
  for (const [language, text] of Object.entries(value)) {
    if (!LANGUAGE_TAG.test(language)) {
      add(
        problems,
        `${where}.${language}`,
        'is not a language tag (two or three lower-case letters, then _region: en, de, pt_br)',
      );
      valid = false;
    } else if (typeof text !== 'string' || text.length > TEXT_MAX) {
      add(problems, `${where}.${language}`, `must be a string of at most ${TEXT_MAX} characters`);
      valid = false;
    }
  }
  if (typeof value['en'] !== 'string') {
    add(problems, `${where}.en`, 'is required: English is what clients fall back to');
    valid = false;
  }
  return valid ? (value as LocalizedText) : null;
}

function parseMedia(value: unknown, where: string, problems: Problems): MediaObject | MediaObject[] | null {
  if (!Array.isArray(value)) return parseMediaObject(value, where, problems, false);
  if (value.length === 0) {
    add(problems, where, 'must not be an empty list: leave media out, or give one media object per language');
    return null;
  }
  const objects = value.map((item: unknown, index) => parseMediaObject(item, `${where}[${index}]`, problems, true));
  return objects.some((object) => object === null) ? null : (objects as MediaObject[]);
}

function parseMediaObject(
  value: unknown,
  where: string,
  problems: Problems,
  languageRequired: boolean,
): MediaObject | null {
  if (!isObject(value)) {
    add(
      problems,
      where,
      'must be an object {"content": {"src": "https://…", "alt": "…"}, "alignment": "start" | "end" | "center"}',
    );
    return null;
  }
  checkUnknownKeys(value, ['content', 'language', 'alignment'], where, problems);
  let valid = true;
  const language = value['language'];
  if (language === undefined ? languageRequired : typeof language !== 'string' || !LANGUAGE_TAG.test(language)) {
    add(
      problems,
      `${where}.language`,
      languageRequired
        ? 'is required in a list of media: the language tag each one is for (en, de, …)'
        : 'must be a language tag (en, de, pt_br)',
    );
    valid = false;
  }
  const alignment = value['alignment'];
  if (alignment !== undefined && alignment !== 'start' && alignment !== 'end' && alignment !== 'center') {
    add(problems, `${where}.alignment`, 'must be start, end or center');
    valid = false;
  }
  const content = value['content'];
  if (!isObject(content)) {
    add(problems, `${where}.content`, 'must be an object {"src": "https://…", "alt": "…", "link": "https://…"}');
    return null;
  }
  checkUnknownKeys(content, ['src', 'alt', 'link'], `${where}.content`, problems);
  const src = content['src'];
  const srcProblem =
    typeof src === 'string' ? httpsProblem(src) : 'is required: the https:// address of the image or video';
  if (srcProblem !== null) {
    add(problems, `${where}.content.src`, srcProblem);
    valid = false;
  }
  if (typeof content['alt'] !== 'string') {
    add(problems, `${where}.content.alt`, 'is required: a text that describes the media for those who cannot see it');
    valid = false;
  }
  const link = content['link'];
  const linkError = link === undefined ? null : typeof link === 'string' ? httpsProblem(link) : 'must be a string';
  if (linkError !== null) {
    add(problems, `${where}.content.link`, linkError);
    valid = false;
  }
  return valid ? (value as unknown as MediaObject) : null;
}

function httpsProblem(address: string): string | null {
  const problem = webAddressProblem(address);
  if (problem === null) return null;
  const text = englishOf(problem);
  return text.startsWith('is not an absolute URL') ? `'${address.slice(0, 100)}' ${text}` : text;
}

/** A link opens a page (https://…) or an app of this store (app://APP_ID). */
function linkProblem(link: string, context: DiscoverContext): string | null {
  if (link.startsWith('app://')) {
    const appId = link.slice('app://'.length);
    return context.appExists(appId)
      ? null
      : `there is no app '${appId.slice(0, 64)}' in this store (app://APP_ID must name one)`;
  }
  return httpsProblem(link);
}

/**
 * The entries a server is given on `day` (YYYYMMDD, UTC): those whose expiryDate has not passed
 * by the start of that day. Computed once a day, so the listing's ETag moves at most daily.
 */
export function currentEntries(entries: readonly DiscoverEntry[], day: string): DiscoverEntry[] {
  const dayStart = Date.UTC(Number(day.slice(0, 4)), Number(day.slice(4, 6)) - 1, Number(day.slice(6, 8)));
  return entries.filter((entry) => entry.expiryDate === undefined || Date.parse(entry.expiryDate) > dayStart);
}
