/**
 * A credit's source in words, as the statement, the portal and the customer page print it. Pure
 * and free of imports, so the renderer words a credit the same way.
 */
export interface CreditSource {
  kind: 'overpayment' | 'credit_note' | 'unapplied_cash';
  invoice_number: string | null;
  payer: string | null;
  reference: string | null;
}

export function creditSourceWords(c: CreditSource): string {
  if (c.kind === 'overpayment') return `Overpayment of invoice ${c.invoice_number ?? ''}`.trim();
  if (c.kind === 'credit_note') return `Credit note ${c.invoice_number ?? ''}`.trim();
  // The reference first: a statement's narrow column cuts the end of a long line.
  const reference = c.reference ? ` (ref. ${c.reference.length > 30 ? `${c.reference.slice(0, 29)}…` : c.reference})` : '';
  return `Unapplied payment${reference}${c.payer ? ` from ${c.payer}` : ''}`;
}
