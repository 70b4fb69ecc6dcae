/**
 * A bank statement as every reader (camt.053/054, MT940, OFX, CSV/XLSX) hands it on: the one shape
 * that storing, de-duplicating and matching read, whatever file it came from.
 */
export type StatementFormat = 'camt.053' | 'camt.054' | 'mt940' | 'ofx' | 'csv' | 'xlsx';

export interface StatementEntry {
  /** Booking date (YYYY-MM-DD). */
  booked_on: string;
  /** Value date when the bank gives one (YYYY-MM-DD). */
  value_on: string | null;
  /** Positive integer cents; `direction` says which way the money went. */
  amount_cents: number;
  direction: 'credit' | 'debit';
  /** ISO 4217 code of this entry (may differ from the account's: flagged, never applied automatically). */
  currency: string;
  /** The bank's own references, strongest first: they make an entry's identity across re-imports. */
  bank_reference: string | null;
  end_to_end_id: string | null;
  /** Remittance information: structured (a creditor reference such as RF18...) and free text. */
  structured_reference: string | null;
  remittance_text: string;
  /** The other party: for a credit, the payer. */
  counterparty_name: string | null;
  counterparty_account: string | null;
  /** The bank's transaction code or type in words, when it gives one (e.g. "PMNT/RCDT/ESCT", "NMSC"). */
  bank_code: string | null;
}

export interface ParsedStatement {
  format: StatementFormat;
  /** The statement's own id from the bank (camt Stmt/Id, MT940 :20:/:28C:, OFX FITID range), if any. */
  statement_id: string | null;
  /** The account the statement is for: IBAN or the bank's account number. */
  account: string;
  currency: string;
  period_start: string | null;
  period_end: string | null;
  /** Opening and closing booked balances in signed cents, when the file has them. */
  opening_balance_cents: number | null;
  closing_balance_cents: number | null;
  entries: StatementEntry[];
  /** What the reader noticed but could read past (e.g. balances that do not add up), in words. */
  warnings: string[];
}
