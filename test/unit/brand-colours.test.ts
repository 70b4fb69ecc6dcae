import { describe, expect, it } from 'vitest';
import { brandColour, brandColours, contrastRatio, DARK_SURFACES, LIGHT_SURFACES, MIN_CONTRAST, parseHexColour, readableShade } from '../../core/documents/colours';
import { brandCss } from '../../core/portal/style';
import { shadeWords } from '../../renderer/src/documents/BrandColourField';

describe('brand colours (pure)', () => {
  it('reads a colour as #rrggbb lower case, and nothing else', () => {
    expect(parseHexColour('#0B5CAD')).toBe('#0b5cad');
    expect(parseHexColour(' 0b5cad ')).toBe('#0b5cad');
    expect(parseHexColour('#0bd')).toBe('#00bbdd');
    for (const bad of ['', '#', 'blue', '#12345', '#1234567', '#ggg', 'rgb(1,2,3)', '#0b5cad;}']) expect(parseHexColour(bad), bad).toBeNull();
  });

  it('measures contrast as WCAG does', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#ffffff', '#ffffff')).toBe(1);
    // WCAG's own example pair: #767676 on white is the lightest grey that passes AA.
    expect(contrastRatio('#767676', '#ffffff')).toBeGreaterThanOrEqual(4.5);
    expect(contrastRatio('#777777', '#ffffff')).toBeLessThan(4.5);
    expect(contrastRatio('#0b5cad', '#ffffff')).toBeCloseTo(contrastRatio('#ffffff', '#0b5cad'), 10);
  });

  it('keeps a colour that reads, and otherwise takes the nearest darker or lighter shade of it that does', () => {
    expect(readableShade('#0b5cad', LIGHT_SURFACES, 'darker')).toEqual({ colour: '#0b5cad', adjusted: false, contrast: expect.any(Number) });
    const yellow = brandColour('#ffcc00');
    expect(yellow.light.adjusted).toBe(true);
    for (const s of LIGHT_SURFACES) expect(contrastRatio(yellow.light.colour, s)).toBeGreaterThanOrEqual(MIN_CONTRAST);
    // The nearest such shade: just past the line, not black.
    expect(Math.min(...LIGHT_SURFACES.map((s) => contrastRatio(yellow.light.colour, s)))).toBeLessThan(MIN_CONTRAST + 0.3);
    const navy = brandColour('#1a1a40');
    expect(navy.dark.adjusted).toBe(true);
    for (const s of DARK_SURFACES) expect(contrastRatio(navy.dark.colour, s)).toBeGreaterThanOrEqual(MIN_CONTRAST);
    // Every colour gets a readable shade both ways, white and black included.
    for (const c of ['#ffffff', '#000000', '#808080', '#ff0000', '#00ff00', '#f6f7f9']) {
      const shade = brandColour(c);
      expect(Math.min(...LIGHT_SURFACES.map((s) => contrastRatio(shade.light.colour, s))), c).toBeGreaterThanOrEqual(MIN_CONTRAST);
      expect(Math.min(...DARK_SURFACES.map((s) => contrastRatio(shade.dark.colour, s))), c).toBeGreaterThanOrEqual(MIN_CONTRAST);
    }
  });

  it('writes the portal sheet of the shades, and nothing without colours', () => {
    expect(brandCss(brandColours(null, null))).toBe('');
    const css = brandCss(brandColours('#ffcc00', null));
    expect(css).toBe(`:root { --accent: ${brandColour('#ffcc00').light.colour}; }\n@media (prefers-color-scheme: dark) {\n  :root { --accent: #ffcc00; }\n}\n`);
    expect(brandCss(brandColours(null, '#7c3aed'))).toContain(':root { --link: #7c3aed; }');
  });

  it('tells the owner in words which shade stands in for a colour, and says nothing when none does', () => {
    const words = shadeWords('Primary colour', brandColour('#ffcc00'));
    expect(words).toHaveLength(1);
    expect(words[0]).toMatch(/^Primary colour #FFCC00 is too light for text on white: the portal in light mode and the PDFs use the darker #[0-9A-F]{6} \(contrast \d\.\d to 1\), so it stays readable\.$/);
    expect(shadeWords('Accent colour', brandColour('#1a1a40'))[0]).toMatch(/^Accent colour #1A1A40 is too dark for the portal in dark mode: it uses the lighter #[0-9A-F]{6}/);
    expect(shadeWords('Primary colour', brandColour('#0b5cad'))).toEqual([expect.stringContaining('too dark for the portal in dark mode')]);
    expect(shadeWords('Primary colour', brandColour('#6d28d9')).filter((w) => w.includes('too light'))).toEqual([]);
  });
});
