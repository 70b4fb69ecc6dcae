import { useEffect, useRef, useState } from 'react';
import { PANEL_SHORTCUTS } from './InvoicePanel';

const DESK_KEYS: Array<[string, string]> = [
  ['Tab', 'Into the invoice list and out of it: the list is one stop'],
  ['↑ ↓ ← →', 'Move between rows, cells and column headers'],
  ['Enter', 'Open the invoice under the cursor; focus moves into its panel (on a header: sort by it)'],
  ['Space', 'Select or unselect the row (bulk changes)'],
  ['Esc', 'Close the panel and go back to its row'],
  ...PANEL_SHORTCUTS.map((s): [string, string] => [s.key.toUpperCase(), `${s.what} (invoice open)`]),
  ['?', 'This list'],
];

/** The "?" screen: every key of the invoice desk, opened by "?" or its button. */
export function KeyboardHelp() {
  const [open, setOpen] = useState(false);
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const el = e.target as HTMLElement | null;
      const typing = el && (el.isContentEditable || ['INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName));
      if (e.key === '?' && !typing && !document.querySelector('.modal')) {
        e.preventDefault();
        setOpen(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  useEffect(() => {
    if (!open) return;
    const opener = document.activeElement as HTMLElement | null;
    close.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        e.preventDefault();
        setOpen(false);
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => {
      window.removeEventListener('keydown', onKey, true);
      opener?.focus();
    };
  }, [open]);
  return (
    <>
      <button type="button" className="btn btn-ghost btn-small" aria-keyshortcuts="?" onClick={() => setOpen(true)}>
        Keyboard shortcuts
      </button>
      {open && (
        <div className="modal-backdrop" role="presentation" onClick={() => setOpen(false)}>
          <div className="modal" role="dialog" aria-modal="true" aria-labelledby="keys-title" data-testid="keyboard-help" onClick={(e) => e.stopPropagation()}>
            <h2 id="keys-title">Keyboard shortcuts</h2>
            <table className="data-table keys-table">
              <tbody>
                {DESK_KEYS.map(([key, what]) => (
                  <tr key={key}>
                    <th scope="row">
                      <kbd>{key}</kbd>
                    </th>
                    <td>{what}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <div className="modal-actions">
              <button ref={close} type="button" className="btn btn-primary" onClick={() => setOpen(false)}>
                Close
              </button>
            </div>
          </div>
        </div>
      )}
    </>
  );
}
