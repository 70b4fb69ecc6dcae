import { useState } from 'react';
import type { Schemas } from '../api/client';
import { ScrollRegion } from '../components/ScrollRegion';
import { describeError, ErrorBox } from '../components/ErrorBox';
import { useLoad } from '../components/useLoad';
import { formatCount } from '../desk/format';
import { api } from '../state/session';
import { toast } from '../state/toasts';
import { ApiError } from '../api/client';
import {
  buildMapping,
  DATE_FORMAT_LABELS,
  type Entity,
  ENTITY_LABELS,
  fieldLabel,
  fieldsFor,
  guessChoice,
  guessDateFormat,
  IMPORT_STATUS_WORDS,
  IMPORT_STATUSES,
  INVOICE_STATUS_WORDS,
  INVOICE_STATUSES,
  type Mapping,
  type MappingChoice,
  missingFields,
  requirement,
  SECTION_LABELS,
  VALUE_TARGET_LABELS,
  type ValueMap,
  type ValueTarget,
  valueTargets,
} from './import-mapping';
import { uploadForm } from './upload';

type Preview = Schemas['ImportPreview'];
type Result = Schemas['ImportResult'];
type Step = 'file' | 'map' | 'check' | 'done';

const STEPS: Array<{ step: Step; label: string }> = [
  { step: 'file', label: '1. Choose a file' },
  { step: 'map', label: '2. Map the columns' },
  { step: 'check', label: '3. Check (dry run)' },
  { step: 'done', label: '4. Import' },
];

function Counts({ result }: { result: Result }) {
  return (
    <table className="data-table" data-testid="import-counts">
      <thead>
        <tr>
          <th scope="col">Records</th>
          <th scope="col" className="num">
            Created
          </th>
          <th scope="col" className="num">
            Updated
          </th>
          <th scope="col" className="num">
            Unchanged
          </th>
        </tr>
      </thead>
      <tbody>
        {(['customers', 'invoices', 'payments'] as const).map((k) => (
          <tr key={k}>
            <td>{k.charAt(0).toUpperCase() + k.slice(1)}</td>
            <td className="num">{formatCount(result.counts[k].created)}</td>
            <td className="num">{formatCount(result.counts[k].updated)}</td>
            <td className="num">{formatCount(result.counts[k].unchanged)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A refused mapping in sentences: each message already names the column to choose, so no field paths. */
function describeImportError(err: unknown): string {
  if (err instanceof ApiError) {
    const messages = Object.values(err.fieldErrors()).flat();
    if (messages.length) return `${err.message}. ${messages.map((m) => (m.endsWith('.') ? m : `${m}.`)).join(' ')}`;
  }
  return describeError(err);
}


/**
 * Importing a ledger without a terminal: a CSV or XLSX file, a preset or a column per field with
 * a preview of the first rows, a dry run listing every row error, then the import itself.
 */
export function ImportWizard({ companyId }: { companyId: string }) {
  const presets = useLoad((signal) => api.get('/api/companies/{company_id}/imports/presets', { path: { company_id: companyId }, signal }), [companyId]);
  const [savedVersion, setSavedVersion] = useState(0);
  const saved = useLoad((signal) => api.get('/api/companies/{company_id}/import-mappings', { path: { company_id: companyId }, signal }), [companyId, savedVersion]);
  const [saveName, setSaveName] = useState('');
  const [step, setStep] = useState<Step>('file');
  const [file, setFile] = useState<File | null>(null);
  const [sheet, setSheet] = useState('');
  const [preview, setPreview] = useState<Preview | null>(null);
  const [source, setSource] = useState<string>('columns');
  const [choice, setChoice] = useState<MappingChoice>({ entity: 'ar-rows', columns: {}, date: 'YYYY-MM-DD', decimal: '.', valueMaps: [] });
  const [check, setCheck] = useState<Result | null>(null);
  const [result, setResult] = useState<Result | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const base = `/api/companies/${encodeURIComponent(companyId)}/imports`;

  // The source is 'columns' (chosen here), 'preset:<name>' (built in) or 'saved:<id>' (saved earlier).
  const preset = presets.data?.data.find((p) => `preset:${p.name}` === source) ?? null;
  const savedMapping = saved.data?.data.find((m) => `saved:${m.id}` === source) ?? null;
  // Columns chosen by hand in a recognised report: its layout still finds the header under the
  // title rows and skips the headings and totals, as the preview showed the file.
  const recognised = presets.data?.data.find((p) => p.name === preview?.preset) ?? null;
  const chosenMapping = (): Mapping => {
    const built: Mapping = buildMapping(choice);
    if (!recognised) return built;
    const delimiter = recognised.mapping.formats?.delimiter;
    return { ...built, ...(recognised.mapping.layout ? { layout: recognised.mapping.layout } : {}), formats: { ...built.formats, ...(delimiter ? { delimiter } : {}) } };
  };
  const mappingFields = (): Record<string, string> =>
    preset ? { preset: preset.name } : { mapping: JSON.stringify(savedMapping ? savedMapping.mapping : chosenMapping()) };
  const saveMapping = () =>
    run(async () => {
      const created = await api.post('/api/companies/{company_id}/import-mappings', { path: { company_id: companyId }, body: { name: saveName.trim(), mapping: chosenMapping() } });
      toast.success(`Mapping ${created.name} saved.`);
      setSaveName('');
      setSavedVersion((v) => v + 1);
      setSource(`saved:${created.id}`);
    });
  const dates = (() => {
    const guess = guessDateFormat(preview?.columns ?? []);
    const doubtful = preview?.columns.findIndex((c) => c.date && c.date_formats.length > 1) ?? -1;
    return { ...guess, example: doubtful >= 0 ? (preview?.rows.find((r) => r[doubtful])?.[doubtful] ?? '') : '' };
  })();
  const targets = valueTargets(choice.entity);
  const valuesOf = (column: string) => preview?.columns.find((c) => c.header === column)?.values ?? null;
  const setValueMap = (index: number, map: ValueMap) => setChoice({ ...choice, valueMaps: choice.valueMaps.map((v, i) => (i === index ? map : v)) });
  const fileFields = (): Record<string, string | Blob> => ({ file: file!, ...(sheet.trim() ? { sheet: sheet.trim() } : {}) });

  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (err) {
      setError(describeImportError(err));
    } finally {
      setBusy(false);
      setProgress(null);
    }
  };

  const readFile = () =>
    run(async () => {
      const read = await uploadForm<Preview>(`${base}/preview`, fileFields());
      setPreview(read);
      setChoice((c) => guessChoice(c.entity, read.columns));
      // An accounting system's export: its preset reads it, with no mapping to choose; any other file starts from the guess.
      setSource(read.preset ? `preset:${read.preset}` : 'columns');
      setStep('map');
    });
  const dryRun = () =>
    run(async () => {
      const missing = source === 'columns' ? missingFields(choice) : [];
      if (missing.length) throw new Error(`Choose a column for ${missing.join(', for ')}: ${missing.length === 1 ? 'it is' : 'they are'} required.`);
      setCheck(await uploadForm<Result>(base, { ...fileFields(), ...mappingFields(), dry_run: 'true' }));
      setStep('check');
    });
  const apply = () =>
    run(async () => {
      setProgress(0);
      const done = await uploadForm<Result>(base, { ...fileFields(), ...mappingFields() }, setProgress);
      setResult(done);
      setStep('done');
      toast.success(`Imported ${formatCount(done.rows)} rows.`);
    });

  return (
    <section className="card stack" aria-labelledby="import-title" data-testid="import-wizard">
      <h2 id="import-title">Import a ledger</h2>
      <ol className="wizard-steps">
        {STEPS.map((s) => (
          <li key={s.step} aria-current={s.step === step ? 'step' : undefined}>
            {s.label}
          </li>
        ))}
      </ol>
      {presets.error !== null && <ErrorBox what="the import presets" error={presets.error} onRetry={presets.reload} />}
      {saved.error !== null && <ErrorBox what="the saved mappings" error={saved.error} onRetry={saved.reload} />}

      {step === 'file' && (
        <div className="stack">
          <label className="form-row">
            CSV or XLSX file
            <input type="file" accept=".csv,.txt,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
          </label>
          <label className="form-row">
            Sheet (XLSX only; empty for the first)
            <input value={sheet} onChange={(e) => setSheet(e.target.value)} />
          </label>
          <div className="form-actions">
            <button type="button" className="btn btn-primary" disabled={!file || busy} onClick={() => void readFile()}>
              Read the file
            </button>
          </div>
        </div>
      )}

      {step === 'map' && preview && (
        <div className="stack">
          <p>
            {file?.name}: {formatCount(preview.row_count)} rows, {preview.headers.length} columns.
          </p>
          {preview.preset_label && (
            <p role="status" data-testid="import-recognised">
              Recognised as <strong>{preview.preset_label}</strong>: its preset reads the file, no columns to choose.
            </p>
          )}
          <ScrollRegion label="The first rows of the file">
            <table className="data-table" data-testid="import-preview">
              <caption className="sr-only">The first rows of the file</caption>
              <thead>
                <tr>
                  {preview.headers.map((h, i) => (
                    <th key={i} scope="col">
                      {h || `Column ${i + 1}`}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {preview.rows.map((row, r) => (
                  <tr key={r}>
                    {row.map((cell, i) => (
                      <td key={i}>{cell}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollRegion>
          <label className="form-row">
            How to read it
            <select value={source} onChange={(e) => setSource(e.target.value)}>
              <option value="columns">Choose a column for each field</option>
              {saved.data?.data.map((m) => (
                <option key={m.id} value={`saved:${m.id}`}>
                  Saved: {m.name}
                </option>
              ))}
              {presets.data?.data.map((p) => (
                <option key={p.name} value={`preset:${p.name}`}>
                  Preset: {p.label}
                </option>
              ))}
            </select>
          </label>
          {source === 'columns' && (
            <>
              <div className="form-cols">
                <label className="form-row">
                  Each row is
                  <select value={choice.entity} onChange={(e) => setChoice(guessChoice(e.target.value as Entity, preview.columns))}>
                    {Object.entries(ENTITY_LABELS).map(([value, label]) => (
                      <option key={value} value={value}>
                        {label}
                      </option>
                    ))}
                  </select>
                </label>
                <label className="form-row">
                  Dates are written
                  <select value={choice.date} aria-describedby="import-date-hint" onChange={(e) => setChoice({ ...choice, date: e.target.value as MappingChoice['date'] })}>
                    {(Object.keys(DATE_FORMAT_LABELS) as Array<MappingChoice['date']>).map((f) => (
                      <option key={f} value={f}>
                        {DATE_FORMAT_LABELS[f]}
                        {dates.fits.includes(f) ? ' · fits the file' : ''}
                      </option>
                    ))}
                  </select>
                  <span id="import-date-hint" className={dates.ambiguous ? 'field-warning' : 'muted'} data-testid="import-date-hint">
                    {dates.ambiguous
                      ? `Every date in the file reads both ways (${dates.example}): say whether the month or the day comes first.`
                      : dates.fits.length
                        ? 'Read from the dates in the file.'
                        : preview.columns.some((c) => c.date)
                          ? 'No one format reads every date in the file: choose it, and the check names the rows that do not fit.'
                          : 'No dates recognised in the file.'}
                  </span>
                </label>
                <label className="form-row">
                  Decimal separator
                  <select value={choice.decimal} onChange={(e) => setChoice({ ...choice, decimal: e.target.value as MappingChoice['decimal'] })}>
                    <option value=".">Point (1,234.50)</option>
                    <option value=",">Comma (1.234,50)</option>
                  </select>
                </label>
              </div>
              {fieldsFor(choice.entity).map(({ section, fields }) => (
                <fieldset key={section} className="form-cols">
                  <legend>{SECTION_LABELS[section]} fields</legend>
                  {fields.map((f) => {
                    const key = `${section}.${f}`;
                    const need = requirement(choice, key);
                    return (
                      <label key={key} className="form-row">
                        <span>
                          {fieldLabel(section, f)}
                          {need && (
                            <span className="required-mark" data-testid="required-mark">
                              {need === 'required' ? ' (required)' : ' (this or the other marked one)'}
                            </span>
                          )}
                        </span>
                        <select
                          required={need === 'required'}
                          value={choice.columns[key] ?? ''}
                          onChange={(e) => {
                            const columns = { ...choice.columns };
                            if (e.target.value) columns[key] = e.target.value;
                            else delete columns[key];
                            setChoice({ ...choice, columns });
                          }}
                        >
                          <option value="">Not in the file</option>
                          {preview.headers.filter(Boolean).map((h) => (
                            <option key={h} value={h}>
                              {h}
                            </option>
                          ))}
                        </select>
                      </label>
                    );
                  })}
                </fieldset>
              ))}
              {targets.length > 0 && (
                <fieldset className="stack" data-testid="value-maps">
                  <legend>Values that mean something</legend>
                  <p className="muted">A column&apos;s values can give a label on the invoice, the payment status or the payment method (for example Disputed = Yes gives the label Disputed).</p>
                  {choice.valueMaps.map((map, m) => (
                    <div key={m} className="value-map stack" data-testid="value-map">
                      <div className="form-cols">
                        <label className="form-row">
                          Column
                          <select value={map.column} onChange={(e) => setValueMap(m, { ...map, column: e.target.value, values: {} })}>
                            {preview.headers.filter(Boolean).map((h) => (
                              <option key={h} value={h}>
                                {h}
                              </option>
                            ))}
                          </select>
                        </label>
                        <label className="form-row">
                          Gives
                          <select value={map.target} onChange={(e) => setValueMap(m, { ...map, target: e.target.value as ValueTarget, values: {} })}>
                            {targets.map((t) => (
                              <option key={t} value={t}>
                                {VALUE_TARGET_LABELS[t]}
                              </option>
                            ))}
                          </select>
                        </label>
                        <div className="form-actions">
                          <button type="button" className="btn" onClick={() => setChoice({ ...choice, valueMaps: choice.valueMaps.filter((_, i) => i !== m) })}>
                            Remove this value map
                          </button>
                        </div>
                      </div>
                      {valuesOf(map.column) === null ? (
                        <p className="muted">This column has too many different values to map one by one.</p>
                      ) : (
                        <table className="data-table">
                          <caption className="sr-only">Values of {map.column}</caption>
                          <thead>
                            <tr>
                              <th scope="col">When {map.column} is</th>
                              <th scope="col">{VALUE_TARGET_LABELS[map.target]}</th>
                            </tr>
                          </thead>
                          <tbody>
                            {valuesOf(map.column)!.map((value) => (
                              <tr key={value}>
                                <td>{value}</td>
                                <td>
                                  {map.target === 'invoice_status' ? (
                                    <select aria-label={`Invoice status when ${map.column} is ${value}`} value={map.values[value] ?? ''} onChange={(e) => setValueMap(m, { ...map, values: { ...map.values, [value]: e.target.value } })}>
                                      <option value="">As the ledger's word says</option>
                                      {INVOICE_STATUSES.map((st) => (
                                        <option key={st} value={st}>
                                          {INVOICE_STATUS_WORDS[st]}
                                        </option>
                                      ))}
                                    </select>
                                  ) : map.target === 'status' ? (
                                    <select aria-label={`Status when ${map.column} is ${value}`} value={map.values[value] ?? ''} onChange={(e) => setValueMap(m, { ...map, values: { ...map.values, [value]: e.target.value } })}>
                                      <option value="">Nothing</option>
                                      {IMPORT_STATUSES.map((st) => (
                                        <option key={st} value={st}>
                                          {IMPORT_STATUS_WORDS[st]}
                                        </option>
                                      ))}
                                    </select>
                                  ) : (
                                    <input
                                      aria-label={`${map.target === 'label' ? 'Label' : 'Payment method'} when ${map.column} is ${value}`}
                                      value={map.values[value] ?? ''}
                                      placeholder="Nothing"
                                      maxLength={map.target === 'label' ? 60 : 40}
                                      onChange={(e) => setValueMap(m, { ...map, values: { ...map.values, [value]: e.target.value } })}
                                    />
                                  )}
                                </td>
                              </tr>
                            ))}
                          </tbody>
                        </table>
                      )}
                    </div>
                  ))}
                  <div className="form-actions">
                    <button
                      type="button"
                      className="btn"
                      onClick={() => setChoice({ ...choice, valueMaps: [...choice.valueMaps, { column: preview.headers.find(Boolean) ?? '', target: targets[0], values: {} }] })}
                    >
                      Add a value map
                    </button>
                  </div>
                </fieldset>
              )}
              <div className="toolbar-row">
                <label>
                  Save this mapping as
                  <input value={saveName} maxLength={100} onChange={(e) => setSaveName(e.target.value)} />
                </label>
                <button type="button" className="btn" disabled={busy || !saveName.trim()} onClick={() => void saveMapping()}>
                  Save mapping
                </button>
              </div>
            </>
          )}
          <div className="form-actions">
            <button type="button" className="btn" onClick={() => setStep('file')}>
              Back
            </button>
            <button type="button" className="btn btn-primary" disabled={busy} onClick={() => void dryRun()}>
              Check every row
            </button>
          </div>
        </div>
      )}

      {step === 'check' && check && (
        <div className="stack">
          <p role="status" data-testid="import-check-summary">
            {check.errors.length === 0
              ? `All ${formatCount(check.rows)} rows can be imported. Nothing has been written yet.`
              : `${formatCount(check.errors.length)} ${check.errors.length === 1 ? 'row error' : 'row errors'}: fix the file or the mapping, then check again. Nothing was written.`}
          </p>
          <Counts result={check} />
          {check.notes.length > 0 && (
            <ul className="import-notes" data-testid="import-notes" aria-label="What the import decided">
              {check.notes.map((n) => (
                <li key={n}>{n}</li>
              ))}
            </ul>
          )}
          {check.errors.length > 0 && (
            <ScrollRegion label="Row errors" className="errors-list">
              <table className="data-table" data-testid="import-errors">
                <thead>
                  <tr>
                    <th scope="col">Row</th>
                    <th scope="col">Column</th>
                    <th scope="col">Problem</th>
                  </tr>
                </thead>
                <tbody>
                  {check.errors.map((e, i) => (
                    <tr key={i}>
                      <td>{e.row}</td>
                      <td>{e.column ?? ''}</td>
                      <td>{e.message}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollRegion>
          )}
          {progress !== null && (
            <label className="form-row">
              Importing…
              <progress className="progress" value={progress < 1 ? progress : undefined} max={1} />
            </label>
          )}
          <div className="form-actions">
            <button type="button" className="btn" disabled={busy} onClick={() => setStep('map')}>
              Back to the mapping
            </button>
            <button type="button" className="btn btn-primary" disabled={busy || check.errors.length > 0} onClick={() => void apply()}>
              Import {formatCount(check.rows)} rows
            </button>
          </div>
        </div>
      )}

      {step === 'done' && result && (
        <div className="stack">
          <p role="status" data-testid="import-done">
            Imported {formatCount(result.rows)} rows.
            {result.labels_created.length > 0 && ` New labels: ${result.labels_created.join(', ')}.`}
          </p>
          <Counts result={result} />
          <div className="form-actions">
            <button
              type="button"
              className="btn"
              onClick={() => {
                setStep('file');
                setFile(null);
                setPreview(null);
                setCheck(null);
                setResult(null);
              }}
            >
              Import another file
            </button>
          </div>
        </div>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
