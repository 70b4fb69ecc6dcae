import type { Schemas } from '../api/client';
import { fileSize } from './CompanyDocuments';

export type AttachmentKind = Schemas['AttachmentPreview']['kind'];

const OPTIONS: Array<{ kind: AttachmentKind; label: string }> = [
  { kind: 'invoice_pdf', label: 'Attach the invoice PDF' },
  { kind: 'statement', label: 'Attach a statement of account' },
];

/**
 * "Attach the invoice PDF" and "attach a statement" for an email about to be sent. With a preview's
 * files each option names the file and its size as it would be made now; the email gets them made
 * again when it is sent, with the figures of that moment.
 */
export function AttachOptions({ files, chosen, onChange, note }: { files?: Schemas['AttachmentPreview'][]; chosen: AttachmentKind[]; onChange: (kinds: AttachmentKind[]) => void; note: string }) {
  const toggle = (kind: AttachmentKind, on: boolean) => onChange(OPTIONS.map((o) => o.kind).filter((k) => (k === kind ? on : chosen.includes(k))));
  return (
    <fieldset className="attach-options" data-testid="attach-options">
      <legend>Attachments</legend>
      {OPTIONS.map((option) => {
        const file = files?.find((f) => f.kind === option.kind);
        if (files && !file) return null;
        return (
          <label key={option.kind} className="check">
            <input type="checkbox" checked={chosen.includes(option.kind)} onChange={(e) => toggle(option.kind, e.target.checked)} />
            <span>
              {option.label}
              {file && (
                <span className="muted" data-testid="attachment-file">
                  {' '}
                  · {file.file_name}, {fileSize(file.bytes)}
                </span>
              )}
            </span>
          </label>
        );
      })}
      <p className="muted small">{note}</p>
    </fieldset>
  );
}

/** The files an email carries, by name and size, as they would be made now (a preview's line). */
export function AttachedFiles({ files }: { files: Schemas['AttachmentPreview'][] }) {
  if (files.length === 0) return null;
  return (
    <p className="muted small" data-testid="attached-files">
      Attached: {files.map((f) => `${f.file_name} (${fileSize(f.bytes)})`).join(', ')}
    </p>
  );
}
