import { StatementButton } from './DocumentButtons';

/** The customer page's documents: its statement of account to download. */
export function CustomerDocumentActions({ companyId, customerId, customerName }: { companyId: string; customerId: string; customerName: string }) {
  return (
    <div className="document-actions">
      <StatementButton companyId={companyId} customerId={customerId} customerName={customerName} />
    </div>
  );
}
