import { useState } from 'react';
import { describeError } from '../components/ErrorBox';
import { toast } from '../state/toasts';

/**
 * A form's save: one at a time, the server's refusal kept on the form in words (with the fields
 * it names) so nothing typed is lost, and a toast when it worked.
 */
export function useSave() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (work: () => Promise<unknown>, done: string): Promise<boolean> => {
    setBusy(true);
    setError(null);
    try {
      await work();
      toast.success(done);
      return true;
    } catch (err) {
      setError(describeError(err));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, clear: () => setError(null) };
}

export function FormError({ error }: { error: string | null }) {
  return error ? (
    <p className="form-error" role="alert">
      {error}
    </p>
  ) : null;
}
