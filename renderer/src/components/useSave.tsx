import { useState } from 'react';
import { ApiError } from '../api/client';
import { describeError } from '../components/ErrorBox';
import { toast } from '../state/toasts';
import './field-error.css';

/**
 * A form's save: one at a time, the server's refusal kept on the form in words (with the fields
 * it names) so nothing typed is lost, and a toast when it worked.
 */
export function useSave() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  /** The refusal's words per field, for the form to show beside each field. */
  const [fields, setFields] = useState<Record<string, string[]>>({});
  const run = async (work: () => Promise<unknown>, done: string): Promise<boolean> => {
    setBusy(true);
    setError(null);
    setFields({});
    try {
      await work();
      toast.success(done);
      return true;
    } catch (err) {
      setError(describeError(err));
      setFields(err instanceof ApiError ? err.fieldErrors() : {});
      return false;
    } finally {
      setBusy(false);
    }
  };
  return {
    busy,
    error,
    fields,
    run,
    clear: () => {
      setError(null);
      setFields({});
    },
  };
}

export function FormError({ error }: { error: string | null }) {
  return error ? (
    <p className="form-error" role="alert">
      {error}
    </p>
  ) : null;
}
