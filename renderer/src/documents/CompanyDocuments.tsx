import { useEffect, useState } from 'react';
import type { Schemas } from '../api/client';
import { ErrorBox } from '../components/ErrorBox';
import { useLoad } from '../components/useLoad';
import { FormError, useSave } from '../components/useSave';
import { api } from '../state/session';
import { BrandColourField } from './BrandColourField';
import { fetchFile, putForm } from './download';

type Details = Schemas['DocumentDetails'];
type Patch = Schemas['DocumentDetailsPatch'];
const PAPER_WORDS: Record<Details['paper'], string> = { A4: 'A4', Letter: 'US Letter' };

/** Locales offered for documents; a stored one not in the list is offered too. */
const LOCALES = ['en-US', 'en-GB', 'en-CA', 'en-AU', 'en-IE', 'de-DE', 'fr-FR', 'es-ES', 'it-IT', 'nl-NL', 'pt-BR', 'pl-PL', 'sv-SE', 'el-GR', 'ru-RU', 'uk-UA'];

/** A locale in words, e.g. "English (United Kingdom)", with an example of its dates and amounts. */
export function localeWords(locale: string): string {
  let name = locale;
  try {
    name = new Intl.DisplayNames(['en'], { type: 'language' }).of(locale) ?? locale;
  } catch {
    // An unknown tag keeps its code.
  }
  const date = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(Date.UTC(2026, 11, 31)));
  const amount = new Intl.NumberFormat(locale, { minimumFractionDigits: 2 }).format(1234.5);
  return `${name}: ${date}, ${amount}`;
}

export function fileSize(bytes: number): string {
  return bytes < 1024 ? `${bytes} bytes` : bytes < 1024 * 1024 ? `${Math.round(bytes / 1024)} KB` : `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

const TEXT_FIELDS = ['legal_name', 'address', 'tax_id', 'payment_instructions', 'portal_link', 'footer'] as const;
type TextField = (typeof TEXT_FIELDS)[number];
const BRAND_FIELDS = ['brand_primary', 'brand_accent'] as const;
type BrandField = (typeof BRAND_FIELDS)[number];

function LogoPreview({ companyId, logo, version }: { companyId: string; logo: Details['logo']; version: string | null }) {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!logo) return;
    let made: string | null = null;
    let live = true;
    fetchFile(`/api/companies/${encodeURIComponent(companyId)}/document-details/logo`)
      .then(({ blob }) => {
        if (!live) return;
        made = URL.createObjectURL(blob);
        setUrl(made);
      })
      .catch(() => setUrl(null));
    return () => {
      live = false;
      if (made) URL.revokeObjectURL(made);
    };
  }, [companyId, logo, version]);
  if (!logo) return <p className="muted small">No logo: documents start with the company name.</p>;
  return (
    <div className="logo-preview">
      {url && <img src={url} alt="The company logo as documents show it" />}
      <span className="muted small">
        {logo.type === 'image/svg+xml' ? 'SVG' : logo.type === 'image/png' ? 'PNG' : 'JPEG'} image, {fileSize(logo.bytes)}
      </span>
    </div>
  );
}

function DetailsForm({ companyId, details, canWrite, onSaved }: { companyId: string; details: Details; canWrite: boolean; onSaved: () => void }) {
  const [v, setV] = useState<Record<TextField | BrandField, string> & { locale: string; paper: Details['paper'] }>({
    ...(Object.fromEntries(TEXT_FIELDS.map((k) => [k, details[k] ?? ''])) as Record<TextField, string>),
    brand_primary: (details.brand_primary ?? '').toUpperCase(),
    brand_accent: (details.brand_accent ?? '').toUpperCase(),
    locale: details.locale,
    paper: details.paper,
  });
  const save = useSave();
  const logo = useSave();
  const path = { company_id: companyId };
  const input = (key: TextField, label: string, hint?: string, type = 'text') => (
    <label className="form-row">
      {label}
      <input type={type} value={v[key]} disabled={!canWrite} placeholder={hint} onChange={(e) => setV((o) => ({ ...o, [key]: e.target.value }))} />
    </label>
  );
  const area = (key: TextField, label: string, hint?: string) => (
    <label className="form-row form-wide">
      {label}
      <textarea rows={3} value={v[key]} disabled={!canWrite} placeholder={hint} onChange={(e) => setV((o) => ({ ...o, [key]: e.target.value }))} />
    </label>
  );
  const locales = LOCALES.includes(v.locale) ? LOCALES : [v.locale, ...LOCALES];
  return (
    <>
      <form
        className="form-cols"
        data-testid="document-details-form"
        onSubmit={async (e) => {
          e.preventDefault();
          const body: Patch = { ...Object.fromEntries([...TEXT_FIELDS, ...BRAND_FIELDS].map((k) => [k, v[k].trim() || null])), locale: v.locale, paper: v.paper };
          if (await save.run(() => api.patch('/api/companies/{company_id}/document-details', { path, body }), 'Company details saved.')) onSaved();
        }}
      >
        {input('legal_name', 'Legal name', details.company_name)}
        {input('tax_id', 'Tax ID', 'VAT or EIN number')}
        {area('address', 'Address')}
        {area('payment_instructions', 'Payment instructions', 'Bank name, account and routing numbers, IBAN, what to quote as reference')}
        {input('portal_link', 'Payment portal', 'https://', 'url')}
        {input('footer', 'Footer', 'Registered office, company number')}
        <fieldset className="form-fieldset brand-colours">
          <legend>Brand colours</legend>
          <p className="muted small form-wide">Drawn as chosen where text on them or in them stays readable (WCAG AA contrast); otherwise a darker or lighter shade of the colour is used, and said here.</p>
          <BrandColourField
            id="primary"
            label="Primary colour"
            use="The customer portal's buttons and the title of invoice copies and statements."
            value={v.brand_primary}
            saved={details.brand_colours.primary}
            disabled={!canWrite}
            onChange={(value) => setV((o) => ({ ...o, brand_primary: value }))}
          />
          <BrandColourField
            id="accent"
            label="Accent colour"
            use="The customer portal's links and the section rules of invoice copies and statements."
            value={v.brand_accent}
            saved={details.brand_colours.accent}
            disabled={!canWrite}
            onChange={(value) => setV((o) => ({ ...o, brand_accent: value }))}
          />
        </fieldset>
        <label className="form-row">
          Dates and amounts
          <select value={v.locale} disabled={!canWrite} onChange={(e) => setV((o) => ({ ...o, locale: e.target.value }))}>
            {locales.map((l) => (
              <option key={l} value={l}>
                {localeWords(l)}
              </option>
            ))}
          </select>
        </label>
        <label className="form-row">
          Paper size
          <select value={v.paper} disabled={!canWrite} onChange={(e) => setV((o) => ({ ...o, paper: e.target.value as Details['paper'] }))}>
            {(Object.keys(PAPER_WORDS) as Array<Details['paper']>).map((p) => (
              <option key={p} value={p}>
                {PAPER_WORDS[p]}
              </option>
            ))}
          </select>
        </label>
        {canWrite && (
          <div className="form-actions form-wide">
            <button type="submit" className="btn btn-primary" disabled={save.busy}>
              Save company details
            </button>
          </div>
        )}
      </form>
      <FormError error={save.error} />
      <h3>Logo</h3>
      <LogoPreview companyId={companyId} logo={details.logo} version={details.updated_at} />
      {canWrite && (
        <div className="toolbar-row">
          <label className="form-row">
            {details.logo ? 'Replace the logo (PNG, JPEG or SVG, at most 1 MB)' : 'Add a logo (PNG, JPEG or SVG, at most 1 MB)'}
            <input
              type="file"
              accept="image/png,image/jpeg,image/svg+xml"
              disabled={logo.busy}
              onChange={async (e) => {
                const file = e.target.files?.[0];
                e.target.value = '';
                if (!file) return;
                const form = new FormData();
                form.set('file', file);
                if (await logo.run(() => putForm(`/api/companies/${encodeURIComponent(companyId)}/document-details/logo`, form), 'Logo saved.')) onSaved();
              }}
            />
          </label>
          {details.logo && (
            <button
              type="button"
              className="btn btn-small btn-danger"
              disabled={logo.busy}
              onClick={async () => (await logo.run(() => api.delete('/api/companies/{company_id}/document-details/logo', { path }), 'Logo removed.')) && onSaved()}
            >
              Remove logo
            </button>
          )}
        </div>
      )}
      <FormError error={logo.error} />
    </>
  );
}

/** Settings › Company: what invoice copies and statements print, in the company's locale and paper size. */
export function CompanyDocuments({ companyId, canWrite }: { companyId: string; canWrite: boolean }) {
  const [version, setVersion] = useState(0);
  const details = useLoad((signal) => api.get('/api/companies/{company_id}/document-details', { path: { company_id: companyId }, signal }), [companyId, version]);
  return (
    <section className="card" aria-labelledby="company-documents-title">
      <h2 id="company-documents-title">Company details on documents</h2>
      <p className="muted small">Printed on invoice PDFs and statements of account, and on the statements sent to customers.</p>
      {!canWrite && (
        <p className="muted small" data-testid="documents-owner-only">
          Only an owner of this company can change these details and the logo.
        </p>
      )}
      {details.error !== null && <ErrorBox what="the company details" error={details.error} onRetry={details.reload} />}
      {details.data && <DetailsForm key={details.data.updated_at ?? 'new'} companyId={companyId} details={details.data} canWrite={canWrite} onSaved={() => setVersion((n) => n + 1)} />}
    </section>
  );
}
