/**
 * Rows the action and insight tests need (customers, invoices, team members, actions in any state),
 * written straight through commands (see rows.ts) so these tests do not depend on the other areas' endpoints.
 */
import { assessValueAtRisk } from '../../core/actions/value-at-risk';
import type { TestEngine } from './engine';
import { type ActionFixture, fixture, insertActionRow, insertCustomerRow, insertInvoiceRow, insertTeamMemberRow } from './rows';

export function addCustomer(engine: TestEngine, companyId: string, name: string): Promise<string> {
  return fixture(engine, companyId, (tx) => insertCustomerRow(tx, companyId, { name }));
}

/** An unpaid 1,250.00 USD invoice issued 2026-10-01, due 2026-10-31. */
export function addInvoice(engine: TestEngine, companyId: string, customerId: string, invoiceNumber: string): Promise<string> {
  return fixture(engine, companyId, (tx) =>
    insertInvoiceRow(tx, companyId, customerId, { invoice_number: invoiceNumber, invoice_date: '2026-10-01', due_date: '2026-10-31', total_amount: 125_000, currency: 'USD' }),
  );
}

export function addTeamMember(engine: TestEngine, companyId: string, name: string, userId: string | null = null): Promise<string> {
  return fixture(engine, companyId, (tx) => insertTeamMemberRow(tx, companyId, { name, user_id: userId }));
}

/** An action in any state, with any timestamps: the only way to build history rows with past dates. */
export function addAction(engine: TestEngine, companyId: string, values: ActionFixture): Promise<string> {
  return fixture(engine, companyId, (tx) => insertActionRow(tx, companyId, values));
}

/** What a refresh of every customer does once its predictions and proposals are written: assesses each proposal's value at risk on `today`. */
export async function assessProposals(engine: TestEngine, companyId: string, today: string): Promise<void> {
  const customers = await engine.db.selectFrom('customers').select('id').where('company_id', '=', companyId).execute();
  await assessValueAtRisk(engine.db, companyId, today, { customerIds: customers.map((c) => c.id) });
}

/** One valid payload per insight_type, shaped as the spec describes. */
export const SAMPLE_PAYLOADS = {
  customer_conversation_summary: {
    summary: 'Customer confirmed receipt, awaiting AP approval, promised payment by month end',
    tone: 'cooperative',
    active_court: 'Customer',
    action: 'Follow up with AP on December 1 if unpaid',
    action_breakdown: { email: 1, call: 0 },
    last_touch: { channel: 'email', at: '2026-11-20T14:00:00Z', by: 'Dana Demo' },
    commitment_date: '2026-11-30',
    predicted_pay_date: '2026-12-02',
    evidence_trace: ['Email 2026-11-20: "We will pay by the 30th"'],
    unrelated_items: ['New product catalogue request'],
  },
  invoice_conversation_summary: {
    stress_level: 6,
    active_topic: 'Missing purchase order number',
    desired_outcome: 'Invoice approved and paid',
    blocker: 'AP needs a PO reference on the invoice',
    last_touch: { channel: 'call', at: '2026-11-19T10:00:00Z' },
  },
  customer_signal: { entity: { id: 'c1', name: 'Acme Supply' }, signal: { kind: 'payment_delay', days: 12 } },
  invoice_signal: { entity: { id: 'i1' }, signal: null, reason: 'No material change since the last review' },
  portfolio_signal: { entity: { scope: 'portfolio' }, signal: { kind: 'dso_up', delta_days: 4 } },
  invoice_pay_date_prediction: {
    predicted_date: '2026-12-05',
    basis: 'promise',
    evidence_sources: ['communication_thread', 'payment_history'],
    alternative_scenarios: [{ date: '2026-12-15', probability: 0.2 }],
  },
  customer_strategy_plan: { strategy_plan: { strategy: 'firm_reminder', email: { tone: 'firm' }, call: { when: 'day 3' }, internal: { task: 'Check PO' } } },
  portfolio_lessons: {
    lessons: [{ kind: 'late_share', title: '35.6% of invoices were paid late', text: '877 of 2,466 settled invoices were paid after their due date.', link: { status: ['closed_paid'] } }],
  },
  portfolio_forecast_accuracy: {
    weeks: 13,
    from: '2026-08-24',
    to: '2026-11-22',
    horizons: [{ horizon_weeks: 1, weeks: 13, mape: 0.2, wape: 0.148, bias: -0.041, baselines: { due_date: { wape: 0.212 }, run_rate: { wape: 0.178 } } }],
  },
};
