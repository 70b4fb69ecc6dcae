/**
 * XML read safely for bank files (camt, OFX 2.x): no DOCTYPE or entity declaration is accepted
 * (external entities read local files, nested ones expand a few bytes into gigabytes), nesting is
 * bounded, and a malformed document is refused naming the line and the element before any of it
 * is used. Only the five predefined entities and character references are decoded, by hand.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { ValidationError } from '../../errors';
import { READ_LIMITS, malformed } from './values';

/** A parsed element: text, or children by local name (namespace prefixes removed), attributes as @_name. */
export type XmlNode = { [name: string]: XmlValue };
export type XmlValue = string | XmlNode | XmlValue[];

const DECLARATION_RE = /<!(?:DOCTYPE|ENTITY)/i;

export function refuseDeclarations(text: string): void {
  if (DECLARATION_RE.test(text)) {
    throw new ValidationError(
      'The file declares a DOCTYPE or entities; bank statements never do, and such declarations are refused',
      { file: ['DOCTYPE and ENTITY declarations are not accepted'] },
      'xml_declarations_refused',
    );
  }
}

/** The deepest nesting of start tags, stopping as soon as it passes the limit. */
function checkDepth(text: string): void {
  let depth = 0;
  for (let i = text.indexOf('<'); i !== -1; i = text.indexOf('<', i + 1)) {
    const next = text.charCodeAt(i + 1);
    if (next === 47 /* / */) {
      depth--;
      continue;
    }
    if (next === 33 /* ! */ || next === 63 /* ? */) {
      // A comment, CDATA section or processing instruction: skip it whole, '<' inside included.
      const close = text.startsWith('<!--', i) ? text.indexOf('-->', i) : text.startsWith('<![CDATA[', i) ? text.indexOf(']]>', i) : text.indexOf('>', i);
      if (close === -1) return;
      i = close;
      continue;
    }
    const end = text.indexOf('>', i);
    if (end === -1) return;
    if (text.charCodeAt(end - 1) !== 47 /* / */ && ++depth > READ_LIMITS.depth) {
      throw malformed(`The XML nests elements more than ${READ_LIMITS.depth} deep (line ${lineOf(text, i)}); no bank statement does`);
    }
    i = end;
  }
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/**
 * Parses XML text into nodes; `arrays` names the elements that may repeat, so one of them is
 * still a list. Throws a 400 naming the line and element of the first error.
 */
export function parseXml(text: string, arrays: ReadonlySet<string>): XmlNode {
  refuseDeclarations(text);
  checkDepth(text);
  const valid = XMLValidator.validate(text, { allowBooleanAttributes: true });
  if (valid !== true) {
    const { line, msg } = valid.err;
    // The validator lists the elements still open at the end as a JSON array.
    const open = /^Invalid '(\[[\s\S]*\])' found/.exec(msg);
    if (open) {
      const names = (JSON.parse(open[1]) as string[]).map((n) => n.replace(/^[^:]*:/, ''));
      const last = names[names.length - 1];
      throw malformed(`The XML ends inside <${last}> (${names.join(' > ')}) on line ${lineOf(text, text.length)}: the file looks cut off`);
    }
    throw malformed(`The XML is malformed on line ${line}: ${msg.replace(/\.$/, '')}`);
  }
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    removeNSPrefix: true,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    processEntities: false,
    htmlEntities: false,
    ignoreDeclaration: true,
    ignorePiTags: true,
    maxNestedTags: READ_LIMITS.depth,
    isArray: (name) => arrays.has(name),
  });
  return parser.parse(text) as XmlNode;
}

const ENTITY_RE = /&(?:#x([0-9a-fA-F]{1,6})|#(\d{1,7})|(amp|lt|gt|quot|apos));/g;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** The predefined entities and character references, decoded without any expansion beyond them. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(ENTITY_RE, (whole, hex: string | undefined, dec: string | undefined, name: string | undefined) => {
    if (name) return NAMED[name];
    const code = hex ? parseInt(hex, 16) : Number(dec);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/** The child of a node by a path of names (the first of a list at each step). */
export function child(node: XmlValue | undefined, ...path: string[]): XmlValue | undefined {
  let at = node;
  for (const name of path) {
    const node = Array.isArray(at) ? at[0] : at;
    if (node === undefined || typeof node === 'string' || Array.isArray(node)) return undefined;
    at = node[name];
  }
  return Array.isArray(at) ? at[0] : at;
}

/** Every child of that name (a list, one, or none). */
export function children(node: XmlValue | undefined, name: string): XmlValue[] {
  if (node === undefined || typeof node === 'string' || Array.isArray(node)) return [];
  const value = node[name];
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** The text of the node at a path (an element with attributes keeps its text in #text), decoded. */
export function text(node: XmlValue | undefined, ...path: string[]): string | null {
  const at = child(node, ...path);
  if (at === undefined) return null;
  if (typeof at === 'string') return decodeEntities(at);
  if (Array.isArray(at)) return null;
  const inner = at['#text'];
  return typeof inner === 'string' ? decodeEntities(inner) : null;
}

export function attribute(node: XmlValue | undefined, name: string): string | null {
  if (node === undefined || typeof node === 'string' || Array.isArray(node)) return null;
  const value = node[`@_${name}`];
  return typeof value === 'string' ? value : null;
}
