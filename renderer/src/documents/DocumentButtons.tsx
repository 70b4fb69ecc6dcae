import { useState } from 'react';
import { describeError } from '../components/ErrorBox';
import { toast } from '../state/toasts';
import { downloadPdf } from './download';

/** `describe` completes the visible label for a screen reader, which must hear the label itself first. */
function PdfButton({ label, path, fallback, describe }: { label: string; path: string; fallback: string; describe: string }) {
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      className="btn btn-small"
      disabled={busy}
      aria-label={`${label} ${describe}`}
      onClick={async () => {
        setBusy(true);
        try {
          const { name, missingNote } = await downloadPdf(path, fallback);
          if (missingNote) toast.info(`${name} saved. ${missingNote}`);
          else toast.success(`${name} saved.`);
        } catch (err) {
          toast.error(describeError(err));
        } finally {
          setBusy(false);
        }
      }}
    >
      {busy ? 'Making PDF…' : label}
    </button>
  );
}

/** "Download PDF" of an invoice: a copy made from ardesk's record, with today's figures. */
export function InvoicePdfButton({ companyId, invoiceId, invoiceNumber }: { companyId: string; invoiceId: string; invoiceNumber: string }) {
  return (
    <PdfButton
      label="Download PDF"
      describe={`of invoice ${invoiceNumber}`}
      path={`/api/companies/${encodeURIComponent(companyId)}/invoices/${encodeURIComponent(invoiceId)}/document.pdf`}
      fallback={`Invoice-${invoiceNumber}.pdf`}
    />
  );
}

/** "Statement": the customer's statement of account as of today. */
export function StatementButton({ companyId, customerId, customerName }: { companyId: string; customerId: string; customerName: string }) {
  return (
    <PdfButton
      label="Statement"
      describe={`of account of ${customerName} (PDF)`}
      path={`/api/companies/${encodeURIComponent(companyId)}/customers/${encodeURIComponent(customerId)}/statement.pdf`}
      fallback="Statement.pdf"
    />
  );
}
