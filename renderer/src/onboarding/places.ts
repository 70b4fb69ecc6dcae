/**
 * The choices a new company picks from, from the runtime's own tables (Intl): every currency and
 * time zone it knows, and every two-letter country code it can name. Computed once, on first use.
 */
export interface Choice {
  value: string;
  label: string;
}

let currencies: Choice[] | null = null;
let countries: Choice[] | null = null;
let zones: string[] | null = null;

export function currencyChoices(): Choice[] {
  if (!currencies) {
    const names = new Intl.DisplayNames(['en'], { type: 'currency' });
    currencies = Intl.supportedValuesOf('currency').map((code) => ({ value: code, label: `${code} · ${names.of(code) ?? code}` }));
  }
  return currencies;
}

export function countryChoices(): Choice[] {
  if (!countries) {
    const names = new Intl.DisplayNames(['en'], { type: 'region' });
    const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
    const found: Choice[] = [];
    for (const a of letters) {
      for (const b of letters) {
        const code = a + b;
        const name = names.of(code);
        // Unknown codes come back as themselves; the ones Intl reserves as "Unknown Region".
        if (name && name !== code && name !== 'Unknown Region') found.push({ value: code, label: name });
      }
    }
    countries = found.sort((x, y) => x.label.localeCompare(y.label));
  }
  return countries;
}

export function timeZoneChoices(): string[] {
  zones ??= Intl.supportedValuesOf('timeZone');
  return zones;
}

/** This machine's zone, and its country when its locale names one: a new company's likely home. */
export function localPlace(): { timeZone: string; country: string } {
  const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const region = new Intl.Locale(navigator.language || 'en-US').maximize().region ?? '';
  return { timeZone, country: countryChoices().some((c) => c.value === region) ? region : '' };
}
