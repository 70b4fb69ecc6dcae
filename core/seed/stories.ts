/**
 * The demo's collection history, built on the generated ledger: for a handful of customers with
 * overdue invoices, a story (a promise to pay, a pricing dispute, silence, a payment plan, a
 * refusal, a routine follow-up) told consistently through communications, labels and actions with
 * their approval log; plus outreach sequences with enrollments and scheduled steps. The insights
 * and AI proposals come from the intelligence engine run over this data (core/seed/index.ts). Everything is relative to the seed's today, so every view has current data.
 */
import type { Insertable } from 'kysely';
import { longDate } from '../dates';
import type { ActionsTable, ApprovalOperation, CommunicationsTable, ScheduledStepStatus, StepType } from '../db/schema';
import { renderTemplate, templateValues } from '../sequences/templates';
import { zonedTimeToUtc } from './calendar';
import type { LedgerLabels, LedgerResult, SampleCustomer, SampleInvoice } from './ledger';
import type { Rng } from './random';
import type { CompanyFrame, SeedContext, TeamMember } from './workspace';
import { defaultDeadline } from '../actions/rules';
import { assessValueAtRisk } from '../actions/value-at-risk';
import { chunks } from '../chunks';

const STORY_KINDS = ['promise', 'dispute', 'silence', 'installments', 'defiant', 'routine'] as const;
export type StoryKind = (typeof STORY_KINDS)[number];

interface Story {
  kind: StoryKind;
  customer: SampleCustomer;
  invoice: SampleInvoice;
  owner: TeamMember;
  sales: TeamMember;
}

interface Touch {
  day: number;
  minute: number;
  kind: CommunicationsTable['kind'];
  direction: CommunicationsTable['direction'];
  subject: string;
  body: string;
  /** Who wrote it: the AR owner, or the customer's contact. */
  from: 'owner' | 'customer';
}

interface ApprovalSpec {
  op: ApprovalOperation;
  day: number;
  reason?: string;
  comment?: string;
  approver: TeamMember;
}

interface ActionSpec {
  invoice: SampleInvoice | null;
  customer: SampleCustomer;
  type: ActionsTable['action_type'];
  status: ActionsTable['status'];
  description: string;
  recommendation: string | null;
  trigger: string | null;
  required: boolean;
  top?: string;
  ai: boolean;
  metadata: Record<string, unknown>;
  deadline?: string | null;
  createdDay: number;
  executedDay?: number;
  executedBy?: string;
  channelId?: string;
  externalId?: string;
  deletedDay?: number;
  approvals: ApprovalSpec[];
}

export interface StoryOptions {
  company: CompanyFrame;
  ledger: LedgerResult;
  rng: Rng;
  demoUserId: string;
  maxStories: number;
  withSequences: boolean;
}

export interface StoryCounts {
  communications: number;
  actions: number;
  enrollments: number;
  scheduledSteps: number;
}

const money = (cents: number) => `$${(cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

export async function writeStories(ctx: SeedContext, o: StoryOptions): Promise<StoryCounts> {
  const { cal, ids } = ctx;
  const { company, ledger, rng } = o;
  /** A date as the stories' emails write it: 'December 5, 2026'. */
  const written = (day: number) => longDate(cal.date(day));
  const spoken = (day: number) => new Date(`${cal.date(day)}T12:00:00Z`).toLocaleDateString('en-US', { weekday: 'long', month: 'long', day: 'numeric', timeZone: 'UTC' });
  const arTeam = company.team.filter((m) => m.role === 'ar');
  const salesTeam = company.team.filter((m) => m.role === 'sales');
  const manager = company.team.find((m) => m.role === 'manager') ?? arTeam[0];
  const demoMember = company.team.find((m) => m.userId === o.demoUserId) ?? arTeam[0];
  const memberById = new Map(company.team.map((m) => [m.id, m]));
  const sender = company.connections[0];
  const first = (name: string) => name.split(' ')[0];

  const comms: Array<Insertable<CommunicationsTable>> = [];
  const actions: ActionSpec[] = [];
  const extraLabels: Array<{ invoice: SampleInvoice; key: keyof LedgerLabels }> = [];

  const addTouch = (story: Story, t: Touch) => {
    const at = cal.stamp(t.day, t.minute);
    const by = t.from === 'owner' ? story.owner.name : story.customer.contact.name;
    comms.push({
      id: ids(),
      company_id: company.id,
      customer_id: story.customer.id,
      invoice_id: story.invoice.id,
      kind: t.kind,
      direction: t.direction,
      subject: t.subject,
      body: t.body,
      occurred_at: at,
      author_user_id: t.from === 'owner' ? story.owner.userId : null,
      author_name: by,
      email_connection_id: t.kind === 'email' && t.direction === 'outbound' ? sender.id : null,
      message_id: t.kind === 'email' ? `<${story.invoice.number.toLowerCase()}.${t.day + 10_000}.${t.minute}@${t.from === 'owner' ? company.slug : 'customer'}.example.com>` : null,
      created_at: at,
    });
  };

  // Stories go to the customers whose oldest open invoice is at least ten days past due.
  const stories: Story[] = [];
  for (const customer of ledger.customers) {
    if (stories.length >= o.maxStories) break;
    const overdue = ledger.invoices.filter((i) => i.customerIndex === customer.index && i.closing === null && i.dueDay <= -10 && i.balance > 0);
    if (overdue.length === 0) continue;
    const invoice = overdue.reduce((a, b) => (b.dueDay < a.dueDay ? b : a));
    const owner = (customer.arOwnerId && memberById.get(customer.arOwnerId)) || demoMember;
    stories.push({ kind: STORY_KINDS[stories.length % STORY_KINDS.length], customer, invoice, owner, sales: salesTeam[stories.length % salesTeam.length] ?? owner });
  }

  for (const story of stories) {
    const { invoice, customer, owner, sales } = story;
    const num = invoice.number;
    const bal = money(invoice.balance);
    const contact = customer.contact.name;
    const dpd = -invoice.dueDay;
    // Touches run from three days after the due date (at most a week ago) to yesterday.
    const d0 = Math.min(invoice.dueDay + 3, -7);
    const mid = Math.round(d0 / 2);
    const payOnline = invoice.paymentLink ? ` You can pay online at ${invoice.paymentLink}.` : '';
    const reminder: Touch = {
      day: d0,
      minute: 845,
      kind: 'email',
      direction: 'outbound',
      from: 'owner',
      subject: `Invoice ${num} is past due`,
      body: `Hi ${first(contact)},\n\nA friendly reminder that invoice ${num} for ${bal} was due on ${written(invoice.dueDay)}.${payOnline}\n\nThank you,\n${owner.name}\n${company.name}`,
    };
    const sentReminder = (label: string): ActionSpec => ({
      invoice,
      customer,
      type: 'email',
      status: 'completed',
      description: `Send a past-due reminder for ${num} (${bal})`,
      recommendation: 'Send reminder',
      trigger: label,
      required: false,
      ai: true,
      metadata: { final_content: reminder.body, subject: reminder.subject, to: customer.contact.email },
      createdDay: d0 - 1,
      executedDay: d0,
      executedBy: owner.name,
      channelId: `thread-${num.toLowerCase()}`,
      externalId: `<${num.toLowerCase()}.${d0 + 10_000}.845@${company.slug}.example.com>`,
      approvals: [{ op: 'send', day: d0, comment: 'Sent as drafted', approver: owner }],
    });

    switch (story.kind) {
      case 'promise': {
        const commit = invoice.promisedDay !== null && invoice.promisedDay > 0 ? invoice.promisedDay : rng.int(2, 9);
        const reply: Touch = {
          day: -2,
          minute: 1010,
          kind: 'email',
          direction: 'inbound',
          from: 'customer',
          subject: `RE: Invoice ${num} is past due`,
          body: `Hi ${first(owner.name)},\n\nConfirming that ${num} is scheduled in our ACH run on ${spoken(commit)}.\n\nBest,\n${contact}`,
        };
        addTouch(story, reminder);
        addTouch(story, { day: mid, minute: 930, kind: 'call', direction: 'outbound', from: 'owner', subject: `Call with ${contact}`, body: `Spoke with ${first(contact)}. ${num} is approved for payment and goes out in the ACH run on ${spoken(commit)}.` });
        addTouch(story, reply);
        if (!invoice.labels.includes('promise')) extraLabels.push({ invoice, key: 'promise' });
        // The summary written before the promise, replaced once the customer answered.
        actions.push({
          invoice,
          customer,
          type: 'task',
          status: 'proposed',
          description: `Wait for the promised ACH payment of ${bal} for ${num} on ${written(commit)}`,
          recommendation: 'Wait for customer',
          trigger: 'Promise to pay received',
          required: false,
          top: 'wait_for_customer',
          ai: true,
          metadata: { commitment_date: cal.date(commit) },
          deadline: cal.stamp(commit, 1260),
          createdDay: -1,
          approvals: [],
        });
        actions.push(sentReminder(`${num} ${d0 - invoice.dueDay} days past due`));
        break;
      }
      case 'dispute': {
        const po = `PO-${rng.int(40_000, 89_999)}`;
        const disputed = money(Math.round(invoice.total * 0.12));
        addTouch(story, reminder);
        addTouch(story, {
          day: mid,
          minute: 1100,
          kind: 'email',
          direction: 'inbound',
          from: 'customer',
          subject: `RE: Invoice ${num} is past due`,
          body: `${first(owner.name)}, the unit prices on ${num} don't match ${po}. We were quoted contract pricing; the difference is ${disputed}. Please send a corrected invoice or a credit memo and we will pay.\n\n${contact}`,
        });
        addTouch(story, { day: mid + 1, minute: 870, kind: 'note', direction: 'internal', from: 'owner', subject: `Pricing dispute on ${num}`, body: `Forwarded ${po} and the quote to ${sales.name} to confirm the contract price.` });
        if (!invoice.labels.includes('disputed')) extraLabels.push({ invoice, key: 'disputed' });
        actions.push({
          invoice,
          customer,
          type: 'task',
          status: 'proposed',
          description: `Ask ${sales.name} to confirm ${po} pricing for ${num}`,
          recommendation: 'Route dispute to sales',
          trigger: 'Customer disputed pricing',
          required: true,
          ai: true,
          metadata: { po_number: po, disputed_amount: Math.round(invoice.total * 0.12) / 100 },
          createdDay: mid + 1,
          approvals: [],
        });
        actions.push({
          invoice,
          customer,
          type: 'email',
          status: 'cancelled',
          description: `Send a second reminder for ${num}`,
          recommendation: 'Send second reminder',
          trigger: `${num} unpaid 7 days after first reminder`,
          required: true,
          ai: true,
          metadata: { draft_subject: `Second notice: invoice ${num}` },
          createdDay: mid + 2,
          approvals: [{ op: 'reject', day: mid + 2, reason: 'Invoice is disputed', comment: 'Hold reminders until sales confirms the pricing', approver: manager }],
        });
        break;
      }
      case 'silence': {
        addTouch(story, reminder);
        addTouch(story, {
          day: mid,
          minute: 850,
          kind: 'email',
          direction: 'outbound',
          from: 'owner',
          subject: `Second notice: invoice ${num}`,
          body: `Hi ${first(contact)},\n\nWe have not received payment for ${num} (${bal}), now ${dpd + mid} days past due. Please let us know when we can expect payment.\n\n${owner.name}`,
        });
        addTouch(story, { day: -2, minute: 960, kind: 'call', direction: 'outbound', from: 'owner', subject: 'Call attempt', body: `Called ${contact}; no answer. Left a voicemail asking for a payment date for ${num}.` });
        if (dpd > 60 && !invoice.labels.includes('escalated')) extraLabels.push({ invoice, key: 'escalated' });
        const draftSubject = `Action needed: invoice ${num} is ${dpd} days past due`;
        actions.push({
          invoice,
          customer,
          type: 'email',
          status: 'proposed',
          description: `Send a firm reminder for ${num} with the invoice attached`,
          recommendation: 'Send firm reminder',
          trigger: `${dpd} days past due, no response`,
          required: true,
          ai: true,
          metadata: {
            draft_subject: draftSubject,
            draft_body: `Hi ${first(contact)},\n\nInvoice ${num} for ${bal} is now ${dpd} days past due and we have not heard back. A copy is attached. Please reply with a payment date by ${written(3)}.\n\n${owner.name}`,
            attach: ['invoice_pdf'],
          },
          createdDay: -1,
          approvals: [],
        });
        actions.push({
          invoice,
          customer,
          type: 'call',
          status: 'proposed',
          description: `Call ${contact} about ${num}`,
          // The firm reminder's other option, one decision for the invoice (as the engine offers them).
          recommendation: 'Alternative: Call the customer',
          trigger: `${dpd} days past due, no response`,
          required: true,
          top: 'alternative',
          ai: true,
          metadata: { talking_points: ['Ask for a payment date', 'Check whether anything blocks payment'] },
          createdDay: -1,
          approvals: [],
        });
        break;
      }
      case 'installments': {
        const instalment = money(Math.round(invoice.balance / 3));
        const firstDue = rng.int(3, 12);
        addTouch(story, { day: d0, minute: 900, kind: 'call', direction: 'outbound', from: 'owner', subject: 'Payment plan call', body: `${contact} cannot pay ${bal} at once; agreed three monthly payments of about ${instalment}.` });
        addTouch(story, {
          day: d0 + 1,
          minute: 820,
          kind: 'email',
          direction: 'outbound',
          from: 'owner',
          subject: `Payment plan for invoice ${num}`,
          body: `Hi ${first(contact)},\n\nThanks for the call. Confirming the plan: three payments of ${instalment}, the first by ${spoken(firstDue)}.\n\n${owner.name}`,
        });
        addTouch(story, { day: -3, minute: 1005, kind: 'email', direction: 'inbound', from: 'customer', subject: `RE: Payment plan for invoice ${num}`, body: `Agreed, thank you. The first payment goes out ${spoken(firstDue)}.\n\n${contact}` });
        if (!invoice.labels.includes('plan')) extraLabels.push({ invoice, key: 'plan' });
        const confirmation = `Hi ${first(contact)}, confirming three payments of ${instalment}; the first by ${written(firstDue)}. Thank you for working with us.`;
        actions.push({
          invoice,
          customer,
          type: 'email',
          status: 'processing',
          description: `Send the payment plan confirmation for ${num}`,
          recommendation: 'Confirm payment plan',
          trigger: 'Payment plan agreed on a call',
          required: true,
          ai: true,
          metadata: { final_content: confirmation },
          createdDay: -2,
          approvals: [{ op: 'approve', day: -1, comment: 'Terms match the call notes', approver: manager }],
        });
        break;
      }
      case 'defiant': {
        addTouch(story, {
          day: d0,
          minute: 1130,
          kind: 'email',
          direction: 'inbound',
          from: 'customer',
          subject: `Damaged shipment on ${num}`,
          body: `We received 6 of 20 cartons crushed on this order. We will not pay ${num} until the damaged goods are replaced. Photos attached.\n\n${contact}`,
        });
        addTouch(story, { day: mid, minute: 915, kind: 'call', direction: 'outbound', from: 'owner', subject: `Call with ${contact}`, body: `${contact} refuses to pay any part of ${num} before the replacement ships. Escalated to operations.` });
        addTouch(story, { day: -2, minute: 880, kind: 'note', direction: 'internal', from: 'owner', subject: 'Replacement shipment', body: 'Warehouse can ship the replacement cartons next week once sales approves the no-charge order.' });
        for (const key of ['disputed', 'escalated'] as const) if (!invoice.labels.includes(key)) extraLabels.push({ invoice, key });
        actions.push({
          invoice,
          customer,
          type: 'task',
          status: 'proposed',
          description: `Ask operations to schedule the replacement shipment for ${num}`,
          recommendation: 'Escalate to operations',
          trigger: 'Customer refuses payment over damaged goods',
          required: true,
          ai: true,
          metadata: {},
          createdDay: mid,
          approvals: [],
        });
        // A duplicate suggestion a collector deleted (once in the demo).
        if (!actions.some((a) => a.deletedDay !== undefined)) {
          actions.push({
            invoice,
            customer,
            type: 'email',
            status: 'proposed',
            description: `Send a reminder for ${num}`,
            recommendation: 'Send reminder',
            trigger: `${dpd} days past due`,
            required: true,
            ai: true,
            metadata: { draft_subject: `Reminder: invoice ${num}` },
            createdDay: mid,
            deletedDay: -2,
            approvals: [],
          });
        }
        break;
      }
      case 'routine': {
        const run = nextFriday(cal, 0);
        addTouch(story, reminder);
        addTouch(story, { day: -3, minute: 1040, kind: 'email', direction: 'inbound', from: 'customer', subject: `RE: Invoice ${num} is past due`, body: `Thanks, ${num} is in next ${spoken(run)} check run.\n\n${contact}` });
        actions.push({
          invoice,
          customer,
          type: 'email',
          status: 'scheduled',
          description: `Send a courtesy reminder for ${num} the day before the check run`,
          recommendation: 'Courtesy reminder',
          trigger: 'Payment expected in the next check run',
          required: false,
          ai: true,
          metadata: { draft_subject: `Invoice ${num}: check run on ${written(run)}` },
          deadline: cal.stamp(run - 1, 840),
          createdDay: -2,
          approvals: [],
        });
        actions.push(sentReminder(`${num} past due`));
        break;
      }
    }
  }

  // Paid invoices carry the actions that were done before the money came in.
  const paid = ledger.invoices.filter((i) => i.closing === 'paid' && i.closedDay !== null && i.closedDay >= -60 && i.closedDay <= -3 && i.dueDay < i.closedDay).slice(0, 3);
  const customerOf = (i: SampleInvoice) => ledger.customers.find((c) => c.index === i.customerIndex)!;
  if (paid[0]) {
    const i = paid[0];
    const c = customerOf(i);
    actions.push({
      invoice: i,
      customer: c,
      type: 'call',
      status: 'completed',
      description: `Call ${c.contact.name} to confirm remittance for ${i.number}`,
      recommendation: 'Confirm remittance',
      trigger: `${i.number} past due`,
      required: true,
      ai: true,
      metadata: { outcome: 'Customer confirmed the payment date' },
      createdDay: i.closedDay! - 3,
      executedDay: i.closedDay! - 2,
      executedBy: demoMember.name,
      approvals: [{ op: 'complete', day: i.closedDay! - 2, comment: 'Payment confirmed on the call', approver: demoMember }],
    });
  }
  if (paid[1]) {
    const i = paid[1];
    actions.push({
      invoice: i,
      customer: customerOf(i),
      type: 'email',
      status: 'cancelled',
      description: `Send a reminder for ${i.number}`,
      recommendation: 'Send reminder',
      trigger: `${i.number} past due`,
      required: true,
      ai: true,
      metadata: {},
      createdDay: i.closedDay! - 1,
      approvals: [{ op: 'cancel', day: i.closedDay!, reason: 'Paid before the reminder went out', approver: demoMember }],
    });
  }
  if (stories[0]) {
    actions.push({
      invoice: null,
      customer: stories[0].customer,
      type: 'task',
      status: 'proposed',
      description: `Update the billing contact for ${stories[0].customer.name}`,
      recommendation: null,
      trigger: null,
      required: false,
      ai: false,
      metadata: { created_by: demoMember.name },
      createdDay: -1,
      approvals: [],
    });
  }

  await insertRows(ctx, company.id, comms, actions, extraLabels, company.labels);
  const sequenceCounts = o.withSequences ? await writeSequences(ctx, company, stories, ledger, o.rng, sender.id) : { enrollments: 0, scheduledSteps: 0, communications: 0 };
  return {
    communications: comms.length + sequenceCounts.communications,
    actions: actions.length,
    enrollments: sequenceCounts.enrollments,
    scheduledSteps: sequenceCounts.scheduledSteps,
  };
}

/** A decision still to be made: proposed or scheduled. */
function open(status: ActionsTable['status']): boolean {
  return status === 'proposed' || status === 'scheduled';
}

function nextFriday(cal: { date(day: number): string }, from: number): number {
  for (let d = from + 1; d <= from + 7; d++) if (new Date(`${cal.date(d)}T12:00:00Z`).getUTCDay() === 5) return d;
  return from + 7;
}

async function insertRows(
  ctx: SeedContext,
  companyId: string,
  comms: Array<Insertable<CommunicationsTable>>,
  actions: ActionSpec[],
  extraLabels: Array<{ invoice: SampleInvoice; key: keyof LedgerLabels }>,
  labelIds: LedgerLabels,
): Promise<void> {
  const { trx, cal, ids } = ctx;
  // In time order, so the last-touch trigger ends on each invoice's latest touch.
  comms.sort((a, b) => (a.occurred_at < b.occurred_at ? -1 : a.occurred_at > b.occurred_at ? 1 : 0));
  for (const rows of chunks(comms, 200)) await trx.insertInto('communications').values(rows).execute();
  for (const { invoice, key } of extraLabels) {
    await trx
      .insertInto('invoice_labels')
      .values({ company_id: companyId, invoice_id: invoice.id, label_id: labelIds[key], created_at: cal.stamp(-2, 900) })
      .onConflict((oc) => oc.doNothing())
      .execute();
    invoice.labels.push(key);
  }
  for (const a of actions) {
    const id = ids();
    const created = cal.stamp(a.createdDay, 420);
    const lastDay = Math.max(a.createdDay, a.executedDay ?? a.createdDay, ...a.approvals.map((p) => p.day), a.deletedDay ?? a.createdDay);
    await trx
      .insertInto('actions')
      .values({
        id,
        company_id: companyId,
        invoice_id: a.invoice?.id ?? null,
        customer_id: a.customer.id,
        action_type: a.type,
        status: a.status,
        description: a.description,
        recommendation_label: a.recommendation,
        trigger_event_label: a.trigger,
        is_action_required: a.required ? 1 : 0,
        top_recommendation: a.top ?? null,
        is_ai_recommended: a.ai ? 1 : 0,
        metadata: JSON.stringify(a.metadata),
        // An open decision without its own deadline is due as a new one is: ahead of the demo's today.
        response_deadline: a.deadline ?? (open(a.status) && a.deletedDay === undefined ? defaultDeadline(cal.date(0)) : null),
        channel_id: a.channelId ?? null,
        external_id: a.externalId ?? null,
        executed_at: null,
        executed_by: null,
        deleted_at: a.deletedDay === undefined ? null : cal.stamp(a.deletedDay, 600),
        created_at: created,
        updated_at: cal.stamp(lastDay, 600),
        evidence: '[]',
        trigger_key: null,
      })
      .execute();
    for (const p of a.approvals) {
      await trx
        .insertInto('action_approvals')
        .values({ id: ids(), company_id: companyId, action_id: id, operation: p.op, reason: p.reason ?? null, comment: p.comment ?? null, approver_id: p.approver.id, user_id: p.approver.userId, created_at: cal.stamp(p.day, 600) })
        .execute();
    }
    // Assessed when created, as in the app: a decided action keeps the value it had then.
    await assessValueAtRisk(trx, companyId, cal.date(a.createdDay), { actionIds: [id] });
    // Executing is an update, as in the app, so the invoice's last-touch trigger sees it.
    if (a.executedDay !== undefined) {
      await trx
        .updateTable('actions')
        .set({ executed_at: cal.stamp(a.executedDay, 600), executed_by: a.executedBy ?? null })
        .where('id', '=', id)
        .execute();
    }
  }
}

interface StepSpec {
  type: StepType;
  label: string;
  offset: number;
  time: string;
  subject: string;
  body: string;
  html: string;
  instructions: string;
}

const STANDARD_STEPS: StepSpec[] = [
  {
    type: 'reminder',
    label: 'Friendly reminder',
    offset: 0,
    time: '09:00',
    subject: 'Invoice {{invoice_number}} from {{company_name}} is past due',
    body: 'Hi {{contact_name}},\n\nA friendly reminder that invoice {{invoice_number}} for {{balance}} was due on {{due_date}}.{{#payment_link}} You can pay online at {{payment_link}}.{{/payment_link}}\n\nThank you,\n{{sender_name}}',
    html: '<p>Hi {{contact_name}},</p><p>A friendly reminder that invoice <strong>{{invoice_number}}</strong> for {{balance}} was due on {{due_date}}.{{#payment_link}} <a href="{{payment_link}}">Pay online</a>.{{/payment_link}}</p><p>Thank you,<br>{{sender_name}}</p>',
    instructions: 'Keep it short and friendly; mention the payment link.',
  },
  {
    type: 'reminder',
    label: 'Second notice',
    offset: 7,
    time: '09:00',
    subject: 'Second notice: invoice {{invoice_number}} is {{days_past_due}} days past due',
    body: 'Hi {{contact_name}},\n\nWe have not yet received payment for invoice {{invoice_number}} ({{balance}}), due on {{due_date}}. Please reply with the date we can expect payment.\n\n{{sender_name}}',
    html: '<p>Hi {{contact_name}},</p><p>We have not yet received payment for invoice <strong>{{invoice_number}}</strong> ({{balance}}), due on {{due_date}}. Please reply with the date we can expect payment.</p><p>{{sender_name}}</p>',
    instructions: 'Firm but polite; ask for a specific payment date.',
  },
  {
    type: 'call',
    label: 'Call accounts payable',
    offset: 14,
    time: '10:30',
    subject: '',
    body: '',
    html: '',
    instructions: 'Call the billing contact about {{invoice_number}}; ask for a payment date and note any dispute.',
  },
  {
    type: 'task',
    label: 'Review with AR manager',
    offset: 21,
    time: '09:00',
    subject: '',
    body: '',
    html: '',
    instructions: 'Review {{customer_name}} with the AR manager: final notice, credit hold or payment plan.',
  },
];

async function writeSequences(ctx: SeedContext, company: CompanyFrame, stories: Story[], ledger: LedgerResult, rng: Rng, senderId: string) {
  const { trx, cal, ids } = ctx;
  const openOf = (story: Story) => ledger.invoices.filter((i) => i.customerIndex === story.customer.index && i.closing === null);
  const tz = 'America/New_York';
  const created = cal.stamp(-120, 840);
  const insertSequence = async (name: string, status: 'draft' | 'active' | 'archived', steps: StepSpec[]) => {
    const id = ids();
    await trx
      .insertInto('sequences')
      .values({ id, company_id: company.id, name, timezone: tz, send_followups_in_thread: 1, sender_connection_id: senderId, status, created_at: created, updated_at: created })
      .execute();
    const stepIds: string[] = [];
    for (const [position, s] of steps.entries()) {
      const stepId = ids();
      await trx
        .insertInto('sequence_steps')
        .values({
          id: stepId,
          company_id: company.id,
          sequence_id: id,
          position: position + 1,
          step_type: s.type,
          label: s.label,
          offset_days: s.offset,
          offset_time: s.time,
          is_active: 1,
          subject_template: s.subject,
          body_plain_template: s.body,
          body_html_template: s.html,
          instructions: s.instructions,
          created_at: created,
          updated_at: created,
        })
        .execute();
      stepIds.push(stepId);
    }
    return { id, stepIds };
  };

  const standard = await insertSequence('Standard past-due follow-up', 'active', STANDARD_STEPS);
  await insertSequence('Pre-due courtesy reminders', 'draft', [
    { ...STANDARD_STEPS[0], label: 'Upcoming due date', subject: 'Invoice {{invoice_number}} is due on {{due_date}}', instructions: 'A courtesy note before the due date.' },
    { ...STANDARD_STEPS[0], label: 'Due today', offset: 5, subject: 'Invoice {{invoice_number}} is due today' },
  ]);
  await insertSequence('Legacy dunning (2024)', 'archived', [{ ...STANDARD_STEPS[1], offset: 0 }]);

  // Enroll the customers whose stories allow reminders (not those in dispute or refusing).
  const enrolled = stories.filter((s) => s.kind !== 'dispute' && s.kind !== 'defiant').slice(0, 7);
  const starts = [-24, -16, -11, -8, -4, -1, 2];
  let enrollments = 0;
  let scheduledSteps = 0;
  let communications = 0;
  let failedOnce = false;
  for (const [k, story] of enrolled.entries()) {
    const start = starts[k % starts.length];
    // The last enrolled customer paid and was stopped; the others are active.
    const stopDay = k === enrolled.length - 1 && enrolled.length > 2 ? Math.min(start + 9, -1) : null;
    const enrollmentId = ids();
    await trx
      .insertInto('sequence_enrollments')
      .values({
        id: enrollmentId,
        company_id: company.id,
        sequence_id: standard.id,
        customer_id: story.customer.id,
        status: stopDay === null ? 'active' : 'completed',
        start_date: cal.date(start),
        stop_reason: stopDay === null ? null : 'Customer paid in full',
        completed_at: stopDay === null ? null : cal.stamp(stopDay, 900),
        created_at: cal.stamp(Math.min(start, -1), 780),
        updated_at: cal.stamp(stopDay ?? Math.min(start, -1), 900),
      })
      .execute();
    enrollments++;
    const days = STANDARD_STEPS.map((s) => start + s.offset);
    const lastPast = days.filter((d) => d < 0 && (stopDay === null || d < stopDay)).length - 1;
    for (const [n, step] of STANDARD_STEPS.entries()) {
      const day = days[n];
      let status: ScheduledStepStatus;
      if (stopDay !== null) status = day < stopDay ? (step.type === 'reminder' ? 'sent' : 'completed') : 'cancelled';
      else if (day >= 0) status = 'scheduled';
      else if (n === lastPast) status = 'ready';
      else if (step.type !== 'reminder') status = 'completed';
      else if (!failedOnce && rng.chance(0.5)) status = 'failed';
      else status = 'sent';
      if (status === 'failed') failedOnce = true;
      const subject = step.type === 'reminder' ? render(step.subject, story, company, day, cal, openOf(story)) : null;
      const scheduledAt = zonedTimeToUtc(cal.date(day), step.time, tz);
      const sentAt = status === 'sent' ? scheduledAt : null;
      const messageId = step.type === 'reminder' && status !== 'scheduled' && status !== 'cancelled' ? `<seq.${story.invoice.number.toLowerCase()}.${n + 1}@${company.slug}.example.com>` : null;
      // A sent reminder is a communication (the invoice's last touch), linked as the sender links it.
      let communicationId: string | null = null;
      if (sentAt && subject) {
        communicationId = ids();
        await trx
          .insertInto('communications')
          .values({
            id: communicationId,
            company_id: company.id,
            customer_id: story.customer.id,
            invoice_id: story.invoice.id,
            kind: 'email',
            direction: 'outbound',
            subject,
            body: render(step.body, story, company, day, cal, openOf(story)),
            occurred_at: sentAt,
            author_user_id: null,
            author_name: company.connections[0].name,
            email_connection_id: senderId,
            message_id: messageId,
            created_at: sentAt,
          })
          .execute();
        communications++;
      } else if (status === 'completed') {
        // A completed call or task is recorded as the queue records it: a call touches the invoice, a task is a note.
        communicationId = ids();
        const at = cal.stamp(day, 960);
        await trx
          .insertInto('communications')
          .values({
            id: communicationId,
            company_id: company.id,
            customer_id: story.customer.id,
            invoice_id: story.invoice.id,
            kind: step.type === 'call' ? 'call' : 'note',
            direction: step.type === 'call' ? 'outbound' : 'internal',
            subject: step.label,
            body: step.type === 'call' ? `Left a voicemail for ${story.customer.contact.name} about ${story.invoice.number}.` : `Reviewed ${story.customer.name} with ${company.team.find((m) => m.role === 'manager')?.name ?? 'the AR manager'}: one more reminder, then a credit hold.`,
            occurred_at: at,
            author_user_id: story.owner.userId,
            author_name: story.owner.name,
            email_connection_id: null,
            message_id: null,
            created_at: at,
          })
          .execute();
        communications++;
      }
      await trx
        .insertInto('scheduled_steps')
        .values({
          id: ids(),
          company_id: company.id,
          enrollment_id: enrollmentId,
          sequence_id: standard.id,
          step_id: standard.stepIds[n],
          customer_id: story.customer.id,
          invoice_id: story.invoice.id,
          scheduled_date: cal.date(day),
          scheduled_at: scheduledAt,
          status,
          sender_connection_id: step.type === 'reminder' ? senderId : null,
          email_subject: subject,
          sent_at: sentAt,
          error: status === 'failed' ? '550 5.1.1 Mailbox unavailable: recipient address rejected' : null,
          send_started_at: sentAt ?? (status === 'failed' ? scheduledAt : null),
          message_id: status === 'sent' || status === 'failed' ? messageId : null,
          communication_id: communicationId,
          created_at: cal.stamp(Math.min(start, -1), 780),
          updated_at: status === 'scheduled' || day > 0 ? cal.stamp(Math.min(start, -1), 780) : cal.stamp(Math.min(day, -1), 900),
        })
        .execute();
      scheduledSteps++;
    }
  }
  return { enrollments, scheduledSteps, communications };
}

/** Fills a step template with the invoice's data through the sequence sender's own renderer. */
function render(template: string, story: Story, company: CompanyFrame, day: number, cal: SeedContext['cal'], openInvoices: SampleInvoice[]): string {
  const asTemplate = (i: SampleInvoice) => ({
    invoice_number: i.number,
    invoice_date: cal.date(i.invoiceDay),
    due_date: cal.date(i.dueDay),
    currency: 'USD',
    total_amount: i.total,
    balance: i.balance,
    payment_link: i.paymentLink,
  });
  const values = templateValues({
    customerName: story.customer.name,
    contactName: story.customer.contact.name,
    companyName: company.name,
    senderName: company.connections[0].name,
    openInvoices: openInvoices.map(asTemplate),
    invoice: asTemplate(story.invoice),
    currency: 'USD',
    today: cal.date(day),
  });
  return renderTemplate(template, values);
}
