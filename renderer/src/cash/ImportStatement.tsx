import { useId, useRef, useState } from 'react';
import { ApiError, type Schemas } from '../api/client';
import { describeError } from '../components/ErrorBox';
import { uploadForm } from '../settings/upload';
import { type BankMapping, BankMappingDialog } from './BankMappingDialog';
import { importSummary } from './words';

type Imported = Schemas['BankStatementImport'];
type Preview = Schemas['BankTablePreview'];

/** A bank's own export by its name: read through a column mapping, asked for before the import. */
const TABLE_FILE = /\.(csv|xlsx)$/i;

/** The server's own sentence for a refused file (it names the line or element), else the usual words. */
function refusalWords(err: unknown): string {
  return err instanceof ApiError && err.problem ? err.problem.detail : describeError(err);
}

/**
 * Drop a bank statement here, or choose one: camt.053/054, MT940 or OFX, or a CSV or XLSX export
 * (imported with the mapping kept for its columns, else through the mapping dialog). The answer
 * says what became of its entries; a refused file says why, naming the line or element.
 */
export function ImportStatement({ companyId, onImported }: { companyId: string; onImported: (statementId: string | null) => void }) {
  const inputId = useId();
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const [busy, setBusy] = useState<string | null>(null);
  const [progress, setProgress] = useState(0);
  const [result, setResult] = useState<Imported | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [mapping, setMapping] = useState<{ file: File; preview: Preview; error: string | null } | null>(null);
  const path = `/api/companies/${encodeURIComponent(companyId)}/bank-statements`;

  /** The mapping dialog for an export, filled in from the server's guess. */
  async function askMapping(file: File) {
    setMapping({ file, preview: await uploadForm<Preview>(`${path}/preview`, { file }), error: null });
  }

  async function send(file: File, chosen: BankMapping | null) {
    setBusy(file.name);
    setProgress(0);
    setError(null);
    setResult(null);
    try {
      // An export by its name: imported at once when a kept mapping fits its columns, else mapped first.
      if (!chosen && TABLE_FILE.test(file.name)) {
        const preview = await uploadForm<Preview>(`${path}/preview`, { file });
        if (!preview.saved) {
          setMapping({ file, preview, error: null });
          return;
        }
      }
      const done = await uploadForm<Imported>(path, chosen ? { file, mapping: JSON.stringify(chosen) } : { file }, setProgress);
      setMapping(null);
      setResult(done);
      onImported(done.id);
    } catch (err) {
      if (chosen) setMapping((m) => m && { ...m, error: refusalWords(err) });
      else if (err instanceof ApiError && err.problem?.code === 'statement_mapping_required') await askMapping(file).catch((e: unknown) => setError(`${file.name}: ${refusalWords(e)}`));
      else setError(`${file.name}: ${refusalWords(err)}`);
    } finally {
      setBusy(null);
      if (input.current) input.current.value = '';
    }
  }

  return (
    <section className="cash-import" aria-label="Import a bank statement">
      <div
        className={over ? 'drop-zone over' : 'drop-zone'}
        data-testid="statement-drop"
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          const file = e.dataTransfer.files[0];
          if (file) void send(file, null);
        }}
      >
        <span>{busy ? `Reading ${busy}… ${Math.round(progress * 100)}%` : 'Drop a bank statement here (camt.053, camt.054, MT940, OFX, or a CSV or XLSX export), or'}</span>
        <label htmlFor={inputId} className="btn btn-small">
          Choose a file
        </label>
        <input
          ref={input}
          id={inputId}
          className="sr-only"
          type="file"
          accept=".xml,.sta,.mt940,.940,.txt,.ofx,.qfx,.csv,.xlsx"
          disabled={busy !== null}
          data-testid="statement-file"
          onChange={(e) => {
            const file = e.target.files?.[0];
            if (file) void send(file, null);
          }}
        />
      </div>
      {result && (
        <div className="notice-ok" role="status" data-testid="import-result">
          <p>{importSummary(result)}</p>
          {result.warnings.length > 0 && (
            <ul>
              {result.warnings.map((w) => (
                <li key={w}>{w}</li>
              ))}
            </ul>
          )}
        </div>
      )}
      {error && (
        <div className="error-box" role="alert" data-testid="import-error">
          <span>{error}</span>
        </div>
      )}
      {mapping && (
        <BankMappingDialog
          fileName={mapping.file.name}
          preview={mapping.preview}
          busy={busy !== null}
          error={mapping.error}
          onImport={(chosen) => void send(mapping.file, chosen)}
          onCancel={() => setMapping(null)}
        />
      )}
    </section>
  );
}
