/**
 * Bank statements (issue 38): each imported file, its entries (one row per booked credit or debit,
 * unique per company by its identity so a re-import adds nothing), the applications that turned a
 * credit into payments (or unapplied cash), the payer accounts learned from them and the
 * remittance advices customers announce from the portal. Invoice numbers get an index on their
 * matching key (letters and separators before the number, leading zeros and inner separators
 * dropped) so "inv-010231" in a remittance text finds INV-10231 by one index lookup.
 */
import { type Kysely, sql } from 'kysely';

/** The key the matching looks invoice numbers up by; core/bank/keys.ts computes the same in JS, word for word. */
export const INVOICE_NUMBER_KEY = `replace(replace(replace(replace(replace(ltrim(ltrim(upper(invoice_number), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ #:._/-'), '0'), '-', ''), ' ', ''), '/', ''), '.', ''), '_', '')`;

const statements = [
  `CREATE TABLE bank_statements (
    id TEXT PRIMARY KEY,
    company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    format TEXT NOT NULL,
    bank_statement_id TEXT,
    account TEXT NOT NULL,
    currency TEXT NOT NULL,
    period_start TEXT,
    period_end TEXT,
    opening_balance INTEGER,
    closing_balance INTEGER,
    file_name TEXT,
    entries INTEGER NOT NULL,
    credits INTEGER NOT NULL,
    debits INTEGER NOT NULL,
    duplicates INTEGER NOT NULL,
    warnings TEXT NOT NULL DEFAULT '[]',
    imported_by TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  )`,
  `CREATE INDEX bank_statements_company ON bank_statements(company_id, created_at, id)`,
  `CREATE TABLE bank_transactions (
    id TEXT PRIMARY KEY,
    company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    statement_id TEXT NOT NULL REFERENCES bank_statements(id) ON DELETE CASCADE,
    identity TEXT NOT NULL,
    position INTEGER NOT NULL,
    account TEXT NOT NULL,
    booked_on TEXT NOT NULL,
    value_on TEXT,
    amount INTEGER NOT NULL CHECK (amount > 0),
    direction TEXT NOT NULL CHECK (direction IN ('credit', 'debit')),
    currency TEXT NOT NULL,
    bank_reference TEXT,
    end_to_end_id TEXT,
    structured_reference TEXT,
    remittance_text TEXT NOT NULL,
    counterparty_name TEXT,
    counterparty_account TEXT,
    bank_code TEXT,
    state TEXT NOT NULL CHECK (state IN ('pending', 'applied', 'suggested', 'unmatched', 'ignored', 'debit')),
    flag TEXT CHECK (flag IN ('foreign_currency')),
    customer_id TEXT REFERENCES customers(id) ON DELETE SET NULL,
    confidence REAL,
    candidates TEXT NOT NULL DEFAULT '[]',
    note TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  )`,
  `CREATE UNIQUE INDEX bank_transactions_identity ON bank_transactions(company_id, identity)`,
  `CREATE INDEX bank_transactions_state ON bank_transactions(company_id, state, id)`,
  `CREATE INDEX bank_transactions_statement ON bank_transactions(statement_id, position)`,
  `CREATE TABLE bank_applications (
    id TEXT PRIMARY KEY,
    company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    transaction_id TEXT NOT NULL REFERENCES bank_transactions(id) ON DELETE CASCADE,
    customer_id TEXT REFERENCES customers(id) ON DELETE SET NULL,
    invoice_id TEXT REFERENCES invoices(id) ON DELETE SET NULL,
    payment_id TEXT REFERENCES payments(id) ON DELETE SET NULL,
    kind TEXT NOT NULL CHECK (kind IN ('invoice', 'unapplied')),
    amount INTEGER NOT NULL CHECK (amount > 0),
    automatic INTEGER NOT NULL DEFAULT 0,
    short_action TEXT CHECK (short_action IN ('dispute', 'write_off')),
    note TEXT,
    applied_by TEXT,
    reversed_at TEXT,
    reversed_by TEXT,
    created_at TEXT NOT NULL
  )`,
  `CREATE INDEX bank_applications_transaction ON bank_applications(transaction_id)`,
  `CREATE INDEX bank_applications_customer ON bank_applications(company_id, customer_id, kind) WHERE reversed_at IS NULL`,
  `CREATE TABLE bank_payer_accounts (
    id TEXT PRIMARY KEY,
    company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    account TEXT NOT NULL,
    customer_id TEXT NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
    times_applied INTEGER NOT NULL,
    last_applied_on TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  )`,
  `CREATE UNIQUE INDEX bank_payer_accounts_key ON bank_payer_accounts(company_id, account, customer_id)`,
  `CREATE TABLE bank_remittance_advices (
    id TEXT PRIMARY KEY,
    company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    customer_id TEXT NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
    invoice_ids TEXT NOT NULL,
    paid_on TEXT NOT NULL,
    amount INTEGER NOT NULL CHECK (amount > 0),
    reference TEXT,
    created_at TEXT NOT NULL
  )`,
  `CREATE INDEX bank_remittance_advices_amount ON bank_remittance_advices(company_id, amount)`,
  `CREATE INDEX invoices_number_key ON invoices(company_id, ${INVOICE_NUMBER_KEY})`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
