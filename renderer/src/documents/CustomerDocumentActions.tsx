import { StatementButton } from './DocumentButtons';
import { SendStatements, useCanSend } from './SendStatements';

/** The customer page's documents: its statement of account to download or to email to its billing contact. */
export function CustomerDocumentActions({ companyId, customerId, customerName }: { companyId: string; customerId: string; customerName: string }) {
  const canWrite = useCanSend(companyId);
  return (
    <div className="document-actions">
      <StatementButton companyId={companyId} customerId={customerId} customerName={customerName} />
      {canWrite && <SendStatements companyId={companyId} customers={[{ id: customerId, name: customerName }]} label="Send statement" />}
    </div>
  );
}
