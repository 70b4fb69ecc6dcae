/**
 * Brand colours as pure rules: a colour as the owner typed it, its WCAG contrast against the
 * surfaces it is drawn on, and the nearest shade that reads there. The portal shows text in the
 * brand colour (links) and text on it (buttons: white in light mode, near-black in dark), and the
 * PDFs print titles in it on white: each needs 4.5:1 (WCAG 2.2 AA, normal text). A colour that falls
 * short is not refused, since it is the company's own: a darker shade (on light surfaces) or a
 * lighter one (on dark) of the same hue is used instead, and the owner is told which.
 */

/** WCAG AA for normal text. */
export const MIN_CONTRAST = 4.5;

/** What light-mode brand colours sit on or carry: the portal's card and page (portal.css), white button text, PDF paper. */
export const LIGHT_SURFACES = ['#ffffff', '#f6f7f9'] as const;
/** Dark mode: the portal's page and card, and the near-black text of a dark-mode button. */
export const DARK_SURFACES = ['#111418', '#1b2027', '#0b1420'] as const;

type Rgb = [number, number, number];

/** A colour as `#rrggbb` lower case, from `#RRGGBB`, `rrggbb` or `#rgb`; null for anything else. */
export function parseHexColour(value: string): string | null {
  const m = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(value.trim());
  if (!m) return null;
  const hex = m[1].toLowerCase();
  return `#${hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex}`;
}

function rgb(hex: string): Rgb {
  const n = Number.parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function hexOf([r, g, b]: Rgb): string {
  return `#${[r, g, b].map((x) => Math.round(x).toString(16).padStart(2, '0')).join('')}`;
}

/** Relative luminance (WCAG 2.x). */
export function luminance(hex: string): number {
  const [r, g, b] = rgb(hex).map((c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The WCAG contrast ratio of two colours, 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

export interface Shade {
  colour: string;
  /** Not the colour chosen: a darker or lighter one of its hue, for the contrast. */
  adjusted: boolean;
  /** Its lowest contrast against the surfaces, rounded to 0.1. */
  contrast: number;
}

const lowest = (colour: string, surfaces: readonly string[]) => Math.min(...surfaces.map((s) => contrastRatio(colour, s)));

/**
 * The colour itself when it reaches 4.5:1 on every surface; else the least change of it toward
 * black (`darker`) or white (`lighter`) that does, in steps of 1%. Black on the light surfaces and
 * white on the dark ones always do, so there is always an answer.
 */
export function readableShade(colour: string, surfaces: readonly string[], toward: 'darker' | 'lighter'): Shade {
  const base = rgb(colour);
  const end = toward === 'darker' ? 0 : 255;
  let shade = colour;
  for (let step = 0; step <= 100; step++) {
    shade = hexOf(base.map((c) => c + ((end - c) * step) / 100) as Rgb);
    if (lowest(shade, surfaces) >= MIN_CONTRAST) break;
  }
  return { colour: shade, adjusted: shade !== colour, contrast: Math.floor(lowest(shade, surfaces) * 10) / 10 };
}

export interface BrandColour {
  /** As the owner chose it. */
  chosen: string;
  /** On light surfaces (the portal in light mode, the PDFs), with white text on it. */
  light: Shade;
  /** On dark surfaces (the portal in dark mode), with near-black text on it. */
  dark: Shade;
}

export function brandColour(chosen: string): BrandColour {
  return { chosen, light: readableShade(chosen, LIGHT_SURFACES, 'darker'), dark: readableShade(chosen, DARK_SURFACES, 'lighter') };
}

export interface BrandColours {
  primary: BrandColour | null;
  accent: BrandColour | null;
}

export function brandColours(primary: string | null, accent: string | null): BrandColours {
  return { primary: primary ? brandColour(primary) : null, accent: accent ? brandColour(accent) : null };
}
