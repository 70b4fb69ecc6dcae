import { ApiError } from '../api/client';

export function describeError(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.unreachable) return 'The local ardesk server is not answering.';
    const fields = Object.entries(err.fieldErrors()).map(([field, messages]) => `${field}: ${messages.join(', ')}`);
    return fields.length ? `${err.message} (${fields.join('; ')})` : err.message;
  }
  return err instanceof Error ? err.message : String(err);
}

/** Every failed load says what failed and offers a retry: never a blank screen. */
export function ErrorBox({ what, error, onRetry }: { what: string; error: unknown; onRetry?: () => void }) {
  return (
    <div className="error-box" role="alert">
      <div>
        <strong>Could not load {what}.</strong> <span>{describeError(error)}</span>
      </div>
      {onRetry && (
        <button type="button" className="btn" onClick={onRetry}>
          Retry
        </button>
      )}
    </div>
  );
}
