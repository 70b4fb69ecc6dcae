import { type ReactNode, useEffect, useRef } from 'react';

/**
 * A modal confirmation: Esc or Cancel closes it, the confirm button has focus (unless the body
 * focuses a field of its own: focusConfirm false; or the step is one to think twice about, like
 * recording an overpayment: focusCancel, so Enter does not confirm it).
 */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  busy,
  disabled,
  focusConfirm = true,
  focusCancel = false,
  onConfirm,
  onCancel,
}: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  busy?: boolean;
  disabled?: boolean;
  focusConfirm?: boolean;
  focusCancel?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const confirm = useRef<HTMLButtonElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (focusCancel) cancel.current?.focus();
    else if (focusConfirm) confirm.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        onCancel();
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [onCancel, focusConfirm, focusCancel]);
  return (
    <div className="modal-backdrop" role="presentation" onClick={onCancel}>
      <div className="modal" role="alertdialog" aria-modal="true" aria-labelledby="confirm-title" onClick={(e) => e.stopPropagation()}>
        <h2 id="confirm-title">{title}</h2>
        <div className="modal-body">{children}</div>
        <div className="modal-actions">
          <button ref={cancel} type="button" className="btn" onClick={onCancel}>
            Cancel
          </button>
          <button ref={confirm} type="button" className="btn btn-primary" disabled={busy || disabled} onClick={onConfirm}>
            {confirmLabel}
          </button>
        </div>
      </div>
    </div>
  );
}
