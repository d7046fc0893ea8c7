import { said } from '../../i18n/said.ts';
import type { Said } from '../../i18n/said.ts';
import type * as Libxml2 from 'libxml2-wasm';
import { AppError } from '../../errors.ts';
import { importPackage } from '../../import-package.ts';

/** A parsed element, detached from libxml2 (whose memory is freed right after parsing). */
export interface XmlNode {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: readonly XmlNode[];
  /** The element's own text (text and CDATA children), untrimmed. */
  readonly text: string;
  readonly line: number;
}

const refuse = (file: string, message: Said): AppError => new AppError('invalid_info_xml', said`${file}: ${message}`);

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line += 1;
  return line;
}

/**
 * The prolog (before the root element) may hold the XML declaration, comments, processing
 * instructions and white space. A DOCTYPE is refused outright: no DTD means no entity
 * declarations, so neither external entities (XXE) nor entity expansion (billion laughs) exist.
 */
function checkProlog(text: string, file: string): void {
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i, i + 9);
    if (/\s/.test(text[i] ?? '')) i += 1;
    else if (rest.startsWith('<?')) {
      const end = text.indexOf('?>', i);
      if (end < 0) return;
      const declaration = text.slice(i, end);
      const encoding = /^<\?xml\s[^>]*encoding\s*=\s*["']([^"']+)["']/.exec(declaration)?.[1];
      if (encoding !== undefined && !/^utf-?8$/i.test(encoding)) {
        throw refuse(
          file,
          said`line ${lineAt(text, i)}: the XML declaration says encoding="${encoding.slice(0, 40)}"; info.xml must be UTF-8`,
        );
      }
      i = end + 2;
    } else if (rest.startsWith('<!--')) {
      const end = text.indexOf('-->', i);
      if (end < 0) return;
      i = end + 3;
    } else if (rest.startsWith('<!DOCTYPE') || rest.startsWith('<!ENTITY')) {
      throw refuse(file, said`line ${lineAt(text, i)}: a DOCTYPE or entity declaration is not allowed; remove it`);
    } else return;
  }
}

function convert(lib: typeof Libxml2, element: Libxml2.XmlElement): XmlNode {
  const children: XmlNode[] = [];
  let text = '';
  for (let child = element.firstChild; child !== null; child = child.next) {
    if (child instanceof lib.XmlElement) children.push(convert(lib, child));
    else if (child instanceof lib.XmlText || child instanceof lib.XmlCData) text += child.content;
    else if (child instanceof lib.XmlEntityReference)
      throw new AppError('invalid_info_xml', said`line ${child.line}: entity references are not allowed`);
  }
  const attributes: Record<string, string> = {};
  for (const attribute of element.attrs)
    attributes[attribute.prefix ? `${attribute.prefix}:${attribute.name}` : attribute.name] = attribute.value;
  return {
    name: element.prefix ? `${element.prefix}:${element.name}` : element.name,
    attributes,
    children,
    text,
    line: element.line,
  };
}

/** Parses UTF-8 XML bytes into a detached tree, or refuses with the file, line and problem. */
export type XmlParser = (bytes: Buffer, file: string) => XmlNode;

let parser: Promise<XmlParser> | undefined;

/**
 * The XML parser, once libxml2 (WebAssembly, about 25 MB once instantiated) is loaded: when a
 * release is first read, not with the store.
 */
export function loadXmlParser(): Promise<XmlParser> {
  return (parser ??= importPackage<typeof Libxml2>('libxml2-wasm').then(
    (lib) => (bytes: Buffer, file: string) => parseWith(lib, bytes, file),
    (error: unknown) => {
      parser = undefined;
      throw error;
    },
  ));
}

function parseWith(lib: typeof Libxml2, bytes: Buffer, file: string): XmlNode {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw refuse(file, said`not valid UTF-8; save it as UTF-8`);
  }
  checkProlog(text, file);
  let document: Libxml2.XmlDocument;
  try {
    document = lib.XmlDocument.fromString(text, { url: file });
  } catch (error) {
    const detail = error instanceof lib.XmlParseError ? error.details[0] : undefined;
    const where = detail?.line === undefined ? '' : `line ${detail.line}: `;
    throw refuse(file, said`malformed XML: ${where}${(detail?.message ?? 'could not be parsed').trim().slice(0, 300)}`);
  }
  try {
    if (document.dtd !== null) throw refuse(file, said`a DOCTYPE is not allowed; remove it`);
    return convert(lib, document.root);
  } catch (error) {
    if (error instanceof AppError && error.said !== undefined && !error.detail.startsWith(file))
      throw refuse(file, error.said);
    throw error;
  } finally {
    document.dispose();
  }
}
