import type { ReactNode } from 'react';

/** A secret the server shows this once (a token, a signing secret): said so, copyable, dismissed with Done. */
export function SecretOnce({ secret, testId, onDone, children }: { secret: string; testId: string; onDone: () => void; children: ReactNode }) {
  return (
    <div className="token-once stack" role="status" data-testid={testId}>
      <p>{children}</p>
      <div className="secret">{secret}</div>
      <div className="form-actions">
        <button type="button" className="btn" onClick={() => void navigator.clipboard?.writeText(secret)}>
          Copy
        </button>
        <button type="button" className="btn" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}
