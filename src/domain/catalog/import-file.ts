import { add, checkUnknownKeys, isObject, refuse } from '../import-problems.ts';
import type { Problems } from '../import-problems.ts';
import type { Category, CategoryTranslation, PlatformRelease } from './catalog.ts';
import { parsePlatformVersion } from '../versions/semantic-version.ts';
import { CATEGORY_ID_PATTERN, LANGUAGE_CODE_PATTERN } from './catalog.ts';

/**
 * Validation of the import files of `appstore category import` and `appstore platform import`:
 * JSON arrays shaped like categories.json and platforms.json. Every problem is collected, keyed
 * by where it is (`[2].translations.de.name`), and the whole file is refused if there is any.
 */

export function parseCategoryFile(data: unknown): Category[] {
  const problems: Problems = {};
  if (!Array.isArray(data)) refuse('category', { '(file)': ['must be a JSON array of categories'] });
  const seen = new Map<string, number>();
  const categories: Category[] = [];
  data.forEach((entry: unknown, index) => {
    const where = `[${index}]`;
    if (!isObject(entry)) {
      add(problems, where, 'must be an object {"id": …, "translations": {…}}');
      return;
    }
    checkUnknownKeys(entry, ['id', 'translations'], where, problems);
    const id = entry['id'];
    if (typeof id !== 'string' || !CATEGORY_ID_PATTERN.test(id)) {
      add(
        problems,
        `${where}.id`,
        'must be a category id: lower-case letters, digits, _ and -, starting with a letter, at most 64 characters',
      );
    } else if (seen.has(id)) {
      add(problems, `${where}.id`, `duplicate of entry [${seen.get(id)}] ('${id}')`);
    } else {
      seen.set(id, index);
    }
    const translations = parseCategoryTranslations(entry['translations'], `${where}.translations`, problems);
    if (typeof id === 'string' && translations !== null) categories.push({ id, translations });
  });
  if (Object.keys(problems).length > 0) refuse('category', problems);
  return categories;
}

function parseCategoryTranslations(
  value: unknown,
  where: string,
  problems: Problems,
): Record<string, CategoryTranslation> | null {
  if (!isObject(value)) {
    add(problems, where, 'must be an object keyed by language code, e.g. {"en": {"name": "Games", "description": ""}}');
    return null;
  }
  const translations: Record<string, CategoryTranslation> = {};
  for (const [language, text] of Object.entries(value)) {
    const at = `${where}.${language}`;
    if (!LANGUAGE_CODE_PATTERN.test(language))
      add(problems, at, 'is not a language code (such as en, de, pt_BR, zh-hans)');
    if (!isObject(text)) {
      add(problems, at, 'must be an object {"name": …, "description": …}');
      continue;
    }
    checkUnknownKeys(text, ['name', 'description'], at, problems);
    const name = text['name'];
    const description = text['description'] ?? '';
    if (typeof name !== 'string' || name.trim() === '') add(problems, `${at}.name`, 'must be a non-empty string');
    if (typeof description !== 'string') add(problems, `${at}.description`, 'must be a string (it may be empty)');
    if (typeof name === 'string' && typeof description === 'string')
      translations[language] = { name: name.trim(), description };
  }
  if (!('en' in value)) add(problems, where, 'needs an English ("en") translation: clients fall back to it');
  return translations;
}

export function parsePlatformFile(data: unknown): PlatformRelease[] {
  const problems: Problems = {};
  if (!Array.isArray(data)) refuse('platform', { '(file)': ['must be a JSON array of platform releases'] });
  const seen = new Map<string, number>();
  const releases: PlatformRelease[] = [];
  data.forEach((entry: unknown, index) => {
    const where = `[${index}]`;
    if (!isObject(entry)) {
      add(problems, where, 'must be an object {"version": "X.Y.Z", "hasRelease": bool, "isSupported": bool}');
      return;
    }
    checkUnknownKeys(entry, ['version', 'hasRelease', 'isSupported'], where, problems);
    const { version, hasRelease, isSupported } = entry;
    if (typeof version !== 'string' || parsePlatformVersion(version) === null) {
      add(problems, `${where}.version`, 'must be a version of three numbers, X.Y.Z (such as 30.0.1)');
    } else if (seen.has(version)) {
      add(problems, `${where}.version`, `duplicate of entry [${seen.get(version)}] ('${version}')`);
    } else {
      seen.set(version, index);
    }
    if (typeof hasRelease !== 'boolean') add(problems, `${where}.hasRelease`, 'must be true or false');
    if (typeof isSupported !== 'boolean') add(problems, `${where}.isSupported`, 'must be true or false');
    if (typeof version === 'string' && typeof hasRelease === 'boolean' && typeof isSupported === 'boolean') {
      releases.push({ version, hasRelease, isSupported });
    }
  });
  if (Object.keys(problems).length > 0) refuse('platform', problems);
  return releases;
}
