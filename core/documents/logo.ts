/**
 * Logos within bounds. A logo is a file from outside: a 560 KB PNG can declare 12000 x 12000 pixels
 * (576 MB once decoded) and a 2.6 KB SVG of nested <use> can stand for 10^8 shapes. So an upload is
 * measured before it is decoded (the image's header, the SVG's element tree), decoded by libvips
 * (sharp) with a pixel limit and a timeout, and kept re-encoded as a PNG of at most 1200 x 400.
 * Documents draw only such a PNG: a logo stored before this check, or synced in from a desktop
 * that had none, is bounded the same way when a document is drawn, or left out if it fails.
 */
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { isBoundedPng, LOGO_BOX } from './logo-size';

export { isBoundedPng, LOGO_BOX, pngSize } from './logo-size';

/** The largest PNG or JPEG decoded (about 100 MB of RGBA pixels at most, while it is shrunk). */
export const MAX_LOGO_INPUT_PIXELS = 25_000_000;
/** An SVG's element tree, counted before anything draws it. */
export const SVG_LIMITS = { elements: 5_000, instances: 20_000, depth: 64 } as const;
const DECODE_TIMEOUT_SECONDS = 10;
/** An SVG declaring a page larger than this (in its own units) is not a logo. */
const MAX_SVG_SIDE = 100_000;

// One libvips thread per image and no operation cache: a logo is small work and must not hold memory.
sharp.concurrency(1);
sharp.cache(false);

export class LogoRefused extends Error {}

const SVG_TAG = /<(\/?)([A-Za-z_][\w:.-]*)((?:\s+[^\s=>/]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?)*)\s*(\/?)>/g;
const ATTRIBUTE = /([^\s=]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/g;

interface SvgNode {
  children: number[];
  /** Elements this one draws again: a <use>'s or feImage's href, a fill/clip/mask/marker url(#id). */
  refs: string[];
}

/**
 * Why an SVG is refused before it is drawn, or null. Counts elements, nesting, and the shapes a
 * renderer would instantiate once every reference (<use href="#a">, url(#a)) is followed: the
 * "billion laughs" of SVG is a few nested <use> that multiply. Entities are refused outright.
 */
export function svgProblem(text: string): string | null {
  if (/<!ENTITY/i.test(text)) return 'The SVG logo declares XML entities; save it without them, or as a PNG';
  const markup = text.replace(/<!--[\s\S]*?-->/g, '').replace(/<!\[CDATA\[[\s\S]*?\]\]>/g, '').replace(/<\?[\s\S]*?\?>/g, '').replace(/<!DOCTYPE[^>]*>/gi, '');
  const nodes: SvgNode[] = [{ children: [], refs: [] }];
  const ids = new Map<string, number>();
  const stack = [0];
  let depth = 0;
  for (const match of markup.matchAll(SVG_TAG)) {
    const [, closing, , attributes, selfClosing] = match;
    if (closing) {
      if (stack.length > 1) stack.pop();
      continue;
    }
    if (nodes.length > SVG_LIMITS.elements) return `The SVG logo has more than ${SVG_LIMITS.elements} elements; simplify it or save it as a PNG`;
    const node: SvgNode = { children: [], refs: [] };
    const index = nodes.push(node) - 1;
    nodes[stack[stack.length - 1]].children.push(index);
    for (const [, name, ...values] of attributes.matchAll(ATTRIBUTE)) {
      const value = values.find((v) => v !== undefined) ?? '';
      if (name === 'id') ids.set(value, index);
      else if ((name === 'href' || name === 'xlink:href') && value.startsWith('#')) node.refs.push(value.slice(1));
      for (const url of value.matchAll(/url\(\s*['"]?#([^)'"\s]+)/g)) node.refs.push(url[1]);
    }
    if (!selfClosing) {
      stack.push(index);
      depth = Math.max(depth, stack.length - 1);
      if (depth > SVG_LIMITS.depth) return `The SVG logo nests elements more than ${SVG_LIMITS.depth} deep; simplify it or save it as a PNG`;
    }
  }
  const tooMany = `The SVG logo would draw more than ${SVG_LIMITS.instances} shapes once its <use> references are followed; simplify it or save it as a PNG`;
  const cost = new Map<number, number>();
  const visiting = new Set<number>();
  // Depth-first with memo: each node's cost is itself, its children and whatever it references.
  const costOf = (index: number, chain: number): number => {
    const known = cost.get(index);
    if (known !== undefined) return known;
    if (visiting.has(index) || chain > SVG_LIMITS.depth * 4) return Number.POSITIVE_INFINITY;
    visiting.add(index);
    let total = 1;
    const node = nodes[index];
    for (const child of node.children) {
      total += costOf(child, chain + 1);
      if (total > SVG_LIMITS.instances) break;
    }
    for (const ref of node.refs) {
      const target = ids.get(ref);
      if (target !== undefined) total += costOf(target, chain + 1);
      if (total > SVG_LIMITS.instances) break;
    }
    visiting.delete(index);
    cost.set(index, total);
    return total;
  };
  const total = costOf(0, 0);
  if (total === Number.POSITIVE_INFINITY) return 'The SVG logo refers to itself in a loop or too deeply; save it as a PNG';
  if (total > SVG_LIMITS.instances) return tooMany;
  return null;
}

function fitted(image: ReturnType<typeof sharp>): Promise<Buffer> {
  return image
    .resize(LOGO_BOX.width, LOGO_BOX.height, { fit: 'inside', withoutEnlargement: true })
    .png({ compressionLevel: 9 })
    .timeout({ seconds: DECODE_TIMEOUT_SECONDS })
    .toBuffer();
}

async function rasterFromSvg(data: Uint8Array): Promise<Buffer> {
  const problem = svgProblem(Buffer.from(data).toString('utf8'));
  if (problem) throw new LogoRefused(problem);
  // The header read parses the markup (bounded above) but draws nothing.
  const meta = await sharp(data, { limitInputPixels: false }).metadata().catch(() => null);
  if (!meta?.width || !meta.height) throw new LogoRefused('The SVG logo could not be read; check that it opens in a browser, or save it as a PNG');
  if (meta.width > MAX_SVG_SIDE || meta.height > MAX_SVG_SIDE) throw new LogoRefused(`The SVG logo declares a page of ${meta.width} x ${meta.height}; give it a width and height of a logo, or save it as a PNG`);
  // Rasterised straight at the size it is kept (72 dpi is the SVG's own unit), so nothing larger is ever drawn.
  const scale = Math.min(LOGO_BOX.width / meta.width, LOGO_BOX.height / meta.height);
  const density = Math.min(100_000, Math.max(1, 72 * scale));
  const limit = Math.ceil((meta.width * density) / 72 + 2) * Math.ceil((meta.height * density) / 72 + 2);
  try {
    return await fitted(sharp(data, { density, limitInputPixels: Math.max(limit, 1) }));
  } catch {
    throw new LogoRefused('The SVG logo could not be drawn within bounds; save it as a PNG');
  }
}

async function rasterFromImage(data: Uint8Array, kind: 'PNG' | 'JPEG'): Promise<Buffer> {
  const meta = await sharp(data, { limitInputPixels: false }).metadata().catch(() => null);
  if (!meta?.width || !meta.height) throw new LogoRefused(`The ${kind} logo could not be read; the file may be damaged`);
  if (meta.width * meta.height > MAX_LOGO_INPUT_PIXELS) {
    throw new LogoRefused(`The logo is ${meta.width} x ${meta.height} pixels; use an image of at most ${MAX_LOGO_INPUT_PIXELS / 1_000_000} million pixels (a logo needs no more than ${LOGO_BOX.width} x ${LOGO_BOX.height})`);
  }
  try {
    // rotate(): a phone's JPEG is stored sideways with an orientation tag.
    return await fitted(sharp(data, { limitInputPixels: MAX_LOGO_INPUT_PIXELS, pages: 1 }).rotate());
  } catch {
    throw new LogoRefused(`The ${kind} logo could not be decoded; the file may be damaged`);
  }
}

/**
 * The logo as it is kept: a PNG of at most 1200 x 400, from a PNG, JPEG or SVG file. Throws
 * LogoRefused, in words, for a file outside the bounds or one that does not decode.
 */
export async function boundLogo(data: Uint8Array, type: 'image/png' | 'image/jpeg' | 'image/svg+xml'): Promise<Buffer> {
  if (type === 'image/svg+xml') return rasterFromSvg(data);
  return rasterFromImage(data, type === 'image/png' ? 'PNG' : 'JPEG');
}

/** Logos bounded for drawing, by their content: a statement run draws the same logo thousands of times. */
const drawable = new Map<string, Buffer | null>();
const DRAWABLE_KEPT = 16;

/**
 * The logo a document may draw: a bounded PNG as it is, anything else (a row from before these
 * bounds, or synced in) bounded now, or null when that fails (the document is drawn without it).
 */
export async function drawableLogo(data: Buffer, type: string): Promise<Buffer | null> {
  if (type === 'image/png' && isBoundedPng(data)) return data;
  const key = createHash('sha256').update(data).digest('hex');
  if (drawable.has(key)) return drawable.get(key) ?? null;
  const bounded =
    type === 'image/png' || type === 'image/jpeg' || type === 'image/svg+xml'
      ? await boundLogo(data, type).catch((err: unknown) => {
          if (!(err instanceof LogoRefused)) throw err;
          return null;
        })
      : null;
  if (drawable.size >= DRAWABLE_KEPT) drawable.delete(drawable.keys().next().value as string);
  drawable.set(key, bounded);
  return bounded;
}
