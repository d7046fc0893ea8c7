#!/usr/bin/env node
// Finds every sentence written with the `said` tag in src/ (src/i18n/said.ts): its source as the
// refusal catalogues key it (`The app {0} is not registered.`), where it is, and what fills each
// placeholder. The refusal catalogue test checks the catalogues against this list; run directly,
// it prints the sentences a language's catalogue lacks, with their context, for a translator:
//   node scripts/said-sources.mjs --missing de
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Reads a template literal's body from `start` (just after the backtick): its cooked parts and placeholder expressions. */
function readTemplate(text, start) {
  const parts = [''];
  const expressions = [];
  let i = start;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') {
      const next = text[i + 1];
      parts[parts.length - 1] += next === 'n' ? '\n' : next === 't' ? '\t' : next;
      i += 2;
    } else if (c === '`') {
      return { parts, expressions, end: i + 1 };
    } else if (c === '$' && text[i + 1] === '{') {
      const end = skipExpression(text, i + 2);
      expressions.push(text.slice(i + 2, end).trim());
      parts.push('');
      i = end + 1;
    } else {
      parts[parts.length - 1] += c;
      i += 1;
    }
  }
  throw new Error('unterminated template');
}

/** The index of the `}` closing an expression that starts at `start`, past strings and nested templates. */
function skipExpression(text, start) {
  let depth = 0;
  let i = start;
  while (i < text.length) {
    const c = text[i];
    if (c === "'" || c === '"') {
      i += 1;
      while (text[i] !== c) i += text[i] === '\\' ? 2 : 1;
      i += 1;
    } else if (c === '`') {
      i = readTemplate(text, i + 1).end;
    } else if (c === '{') {
      depth += 1;
      i += 1;
    } else if (c === '}') {
      if (depth === 0) return i;
      depth -= 1;
      i += 1;
    } else i += 1;
  }
  throw new Error('unterminated expression');
}

function sourceFiles(dir) {
  const files = [];
  for (const entry of fs.readdirSync(dir, { recursive: true })) {
    const name = String(entry);
    if (name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts')) files.push(path.join(dir, name));
  }
  return files.sort();
}

/** Every said sentence of src/: source → the places it is written, each with its placeholders' expressions. */
export function saidSources(root = ROOT) {
  const found = new Map();
  for (const file of sourceFiles(path.join(root, 'src'))) {
    if (file.endsWith(path.join('i18n', 'said.ts'))) continue;
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(/(?<![`\w])said`/g)) {
      const lineStart = text.lastIndexOf('\n', match.index) + 1;
      const before = text.slice(lineStart, match.index).trim();
      if (before.startsWith('*') || before.startsWith('//')) continue; // a comment shows an example
      let read;
      try {
        read = readTemplate(text, match.index + match[0].length);
      } catch (error) {
        throw new Error(`${file}:${text.slice(0, match.index).split('\n').length}: ${error.message}`);
      }
      const { parts, expressions } = read;
      const source = parts.map((part, index) => (index === 0 ? part : `{${index - 1}}${part}`)).join('');
      const line = text.slice(0, match.index).split('\n').length;
      const places = found.get(source) ?? [];
      places.push({ file: path.relative(root, file), line, expressions });
      found.set(source, places);
    }
  }
  return found;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const language = process.argv[process.argv.indexOf('--missing') + 1];
  const sources = saidSources();
  let catalogue = {};
  if (process.argv.includes('--missing'))
    catalogue = JSON.parse(fs.readFileSync(path.join(ROOT, 'src', 'i18n', 'refusals', `${language}.json`), 'utf8'));
  const missing = [...sources].filter(([source]) => catalogue[source] === undefined);
  const out = missing.map(([source, places]) => ({
    source,
    placeholders: places[0].expressions,
    where: places.map((place) => `${place.file}:${place.line}`),
  }));
  process.stdout.write(`${JSON.stringify(out, null, 1)}\n`);
  process.stderr.write(`${out.length} of ${sources.size} sentences\n`);
}
