import { parseHexColour } from '../../../core/documents/colours';
import type { Schemas } from '../api/client';

type Brand = NonNullable<Schemas['BrandColour']>;

/**
 * What the portal and the documents draw for a saved colour, in words: nothing to say when the
 * colour reads as chosen in light and dark; else which shade stands in, where, and why.
 */
export function shadeWords(what: string, brand: Brand): string[] {
  const upper = (hex: string) => hex.toUpperCase();
  const out: string[] = [];
  if (brand.light.adjusted) {
    out.push(`${what} ${upper(brand.chosen)} is too light for text on white: the portal in light mode and the PDFs use the darker ${upper(brand.light.colour)} (contrast ${brand.light.contrast.toFixed(1)} to 1), so it stays readable.`);
  }
  if (brand.dark.adjusted) {
    out.push(`${what} ${upper(brand.chosen)} is too dark for the portal in dark mode: it uses the lighter ${upper(brand.dark.colour)} there (contrast ${brand.dark.contrast.toFixed(1)} to 1).`);
  }
  return out;
}

/** A brand colour typed as #RRGGBB or picked, cleared by emptying it; the shades drawn of the saved colour below. */
export function BrandColourField({
  id,
  label,
  use,
  value,
  saved,
  disabled,
  onChange,
}: {
  id: string;
  label: string;
  use: string;
  value: string;
  saved: Brand | null;
  disabled: boolean;
  onChange: (value: string) => void;
}) {
  const hex = parseHexColour(value);
  const notes = saved && hex === saved.chosen ? shadeWords(label, saved) : [];
  return (
    <div className="form-row brand-colour" data-testid={`brand-${id}`}>
      <label htmlFor={`brand-${id}-text`}>{label}</label>
      <span className="muted small" id={`brand-${id}-use`}>
        {use}
      </span>
      <div className="brand-colour-inputs">
        <input
          id={`brand-${id}-text`}
          type="text"
          inputMode="text"
          autoComplete="off"
          spellCheck={false}
          maxLength={7}
          placeholder="None (#0B5CAD)"
          aria-describedby={`brand-${id}-use`}
          value={value}
          disabled={disabled}
          onChange={(e) => onChange(e.target.value)}
        />
        <input type="color" aria-label={`Pick the ${label.toLowerCase()}`} value={hex ?? '#0b5cad'} disabled={disabled} onChange={(e) => onChange(e.target.value.toUpperCase())} />
      </div>
      {notes.map((n) => (
        <p key={n} className="small brand-shade" data-testid={`brand-${id}-shade`}>
          {n}
        </p>
      ))}
    </div>
  );
}
