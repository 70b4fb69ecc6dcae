/**
 * Ledger fixtures: customers, invoices, payments and team members written straight through the
 * core's commands (no HTTP), for tests that need a small, exact ledger.
 *
 *   const l = ledger(engine, companyId);
 *   const acme = await l.customer({ name: 'Acme' });
 *   const inv = await l.invoice({ customer: acme, number: 'INV-1', total: 100, dueDate: '2026-11-01' });
 *   await l.payment({ invoice: inv, amount: 40, payment_date: '2026-11-10' });
 *
 * Amounts are major units (100 = 100.00). Every write goes through runCommand and is recorded.
 * addMembers() joins existing users to a fresh company.
 */
import { insertMembership } from '../../core/companies/companies';
import { insertCustomer, type CustomerInput } from '../../core/customers/commands';
import { addDays } from '../../core/dates';
import type { Role, TeamMemberRole } from '../../core/db/schema';
import { runCommand, systemActor } from '../../core/engine';
import { toMinor } from '../../core/money';
import { insertPayment, type NewPaymentInput } from '../../core/payments/commands';
import { createTeamMember } from '../../core/team/team';
import type { TestEngine } from './engine';
import { insertInvoiceRow } from './rows';

export interface InvoiceFixture {
  customer: string;
  number: string;
  total: number;
  /** Default: 30 days before dueDate. */
  invoiceDate?: string;
  /** Default: the engine's today. */
  dueDate?: string;
  closingReason?: 'credit_memo' | 'written_off';
}

export function ledger(engine: TestEngine, companyId: string) {
  const scope = { actor: systemActor, companyId };
  return {
    customer(input: CustomerInput & { name: string }): Promise<string> {
      return runCommand(engine, 'fixture_customer', scope, (tx) => insertCustomer(tx, companyId, input));
    },

    /**
     * Inserts an open invoice (or one closed by a credit memo / write-off) with no payments. The
     * invoices area owns invoice creation; this writes the row directly so the ledger tests do not
     * depend on it.
     */
    invoice(input: InvoiceFixture): Promise<string> {
      return runCommand(engine, 'fixture_invoice', scope, (tx) => {
        const dueDate = input.dueDate ?? tx.today;
        return insertInvoiceRow(tx, companyId, input.customer, {
          invoice_number: input.number,
          invoice_date: input.invoiceDate ?? addDays(dueDate, -30),
          due_date: dueDate,
          total_amount: toMinor(input.total),
          closing_reason: input.closingReason ?? null,
          closed_date: input.closingReason ? tx.today : null,
        });
      });
    },

    payment(input: NewPaymentInput): Promise<string> {
      return runCommand(engine, 'fixture_payment', scope, (tx) => insertPayment(tx, companyId, input));
    },

    async teamMember(name: string, role: TeamMemberRole = 'ar'): Promise<string> {
      return (await createTeamMember(engine, scope, { name, role })).id;
    },
  };
}

export type Ledger = ReturnType<typeof ledger>;

/**
 * Gives existing users (by username) a role in a company. Tests make their users once (password
 * hashing is slow on purpose) and a fresh company per test, so every test starts from an empty ledger.
 */
export async function addMembers(engine: TestEngine, companyId: string, members: Array<[string, Role]>): Promise<void> {
  await runCommand(engine, 'fixture_membership', { actor: systemActor, companyId }, async (tx) => {
    for (const [username, role] of members) {
      const user = await tx.db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirstOrThrow();
      await insertMembership(tx, companyId, user.id, role);
    }
  });
}
