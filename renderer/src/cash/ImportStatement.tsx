import { useId, useRef, useState } from 'react';
import { ApiError, type Schemas } from '../api/client';
import { describeError } from '../components/ErrorBox';
import { uploadForm } from '../settings/upload';
import { importSummary } from './words';

type Imported = Schemas['BankStatementImport'];

/** The server's own sentence for a refused file (it names the line or element), else the usual words. */
function refusalWords(err: unknown): string {
  return err instanceof ApiError && err.problem ? err.problem.detail : describeError(err);
}

/**
 * Drop a bank statement here, or choose one: camt.053/054, MT940 or OFX. The answer says what
 * became of its entries; a refused file says why, naming the line or element.
 */
export function ImportStatement({ companyId, onImported }: { companyId: string; onImported: (statementId: string | null) => void }) {
  const inputId = useId();
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const [busy, setBusy] = useState<string | null>(null);
  const [progress, setProgress] = useState(0);
  const [result, setResult] = useState<Imported | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function send(file: File) {
    setBusy(file.name);
    setProgress(0);
    setError(null);
    setResult(null);
    try {
      const done = await uploadForm<Imported>(`/api/companies/${encodeURIComponent(companyId)}/bank-statements`, { file }, setProgress);
      setResult(done);
      onImported(done.id);
    } catch (err) {
      setError(`${file.name}: ${refusalWords(err)}`);
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
          if (file) void send(file);
        }}
      >
        <span>{busy ? `Reading ${busy}… ${Math.round(progress * 100)}%` : 'Drop a bank statement here (camt.053, camt.054, MT940 or OFX), or'}</span>
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
            if (file) void send(file);
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
    </section>
  );
}
