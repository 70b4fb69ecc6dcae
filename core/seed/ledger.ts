/**
 * The ledger generator: customers (with contacts and locations), invoices, payments, label
 * assignments and weekly aging snapshots for one company, produced in a fixed order from a seeded
 * random stream and handed row by row to a sink (the SQLite writer, or a test).
 */
import type {
  AgingSnapshotsTable,
  ClosingReason,
  CustomerContactsTable,
  CustomerLocationsTable,
  CustomersTable,
  InvoiceLabelsTable,
  InvoicesTable,
  PaymentsTable,
} from '../db/schema';
import { invoiceTotals, SETTLED_STATUSES } from '../payments/balance';
import type { Calendar } from './calendar';
import { BILLING_TITLES, businessName, CITIES, type CustomerKind, type CustomerSpec, domainOf, emailLocal, FIRST_NAMES, LAST_NAMES, personName, STREETS } from './names';
import { FORCED, type ForcedOutcome, PAYER_WEIGHTS, PAYERS, planInvoice, type PlannedPayment } from './plan';
import type { Rng } from './random';

/** No generated customer starts with a person's stop on contact. */
export type CustomerRow = Omit<CustomersTable, 'contact_stop' | 'contact_stop_reason' | 'contact_stop_by' | 'contact_stop_at'>;
/** A generated contact: none starts out failing. */
export type ContactRow = Omit<CustomerContactsTable, 'email_failed_at' | 'email_failure'>;
export type LocationRow = CustomerLocationsTable;
/** The demo ledger does not say how bills were sent (bill_channel stays NULL). */
export type InvoiceRow = Omit<InvoicesTable, 'seq' | 'bill_channel'>;
/** The generator writes new payments: no status change yet, so no status_reason. */
export type PaymentRow = Omit<PaymentsTable, 'status_reason'>;
export type SnapshotRow = AgingSnapshotsTable;

export interface LedgerSink {
  customer(row: CustomerRow): void;
  contact(row: ContactRow): void;
  location(row: LocationRow): void;
  invoice(row: InvoiceRow): void;
  payment(row: PaymentRow): void;
  invoiceLabel(row: InvoiceLabelsTable): void;
  snapshot(row: SnapshotRow): void;
}

export const PAYMENT_METHODS = ['ACH', 'CHECK', 'CREDIT_CARD', 'WIRE'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

/** The label ids the generator assigns by rule (see `labelsFor`). */
export interface LedgerLabels {
  disputed: string;
  promise: string;
  escalated: string;
  vip: string;
  plan: string;
}

export interface LedgerSpec {
  companyId: string;
  /** Used in payment-portal links. */
  companySlug: string;
  invoices: number;
  customers: number;
  /** Hand-written customers; they come first, then generated ones. */
  curated: CustomerSpec[];
  arOwners: string[];
  salesOwners: string[];
  labels: LedgerLabels;
  rng: Rng;
  ids: () => string;
  calendar: Calendar;
  /** Invoices are numbered INV-<start>, INV-<start+1>, ... in date order. */
  firstInvoiceNumber: number;
  /** Days of history: invoice dates run from today - span to yesterday. */
  spanDays: number;
}

/** One invoice of a curated customer, kept in memory so the demo can build stories on it. */
export interface SampleInvoice {
  id: string;
  customerIndex: number;
  number: string;
  invoiceDay: number;
  dueDay: number;
  total: number;
  paid: number;
  balance: number;
  closing: ClosingReason | null;
  closedDay: number | null;
  labels: Array<keyof LedgerLabels>;
  promisedDay: number | null;
  paymentLink: string | null;
  payments: Array<{ day: number; amount: number; status: string; method: PaymentMethod }>;
}

export interface SampleCustomer {
  id: string;
  index: number;
  name: string;
  isPerson: boolean;
  kind: CustomerKind;
  arOwnerId: string | null;
  contact: { id: string; name: string; email: string };
}

export interface LedgerResult {
  customers: SampleCustomer[];
  invoices: SampleInvoice[];
  /** Weekly aging snapshots, the latest first. */
  snapshots: SnapshotRow[];
  counts: { customers: number; contacts: number; locations: number; invoices: number; payments: number; labels: number; snapshots: number };
}

/** Invoice sizes per kind of customer, in dollars (log-uniform between the two). */
const SIZES: Record<CustomerKind, [number, number]> = {
  contractor: [1_500, 30_000],
  clinic: [180, 3_500],
  distributor: [1_200, 24_000],
  manufacturer: [900, 20_000],
  services: [350, 9_000],
  hospitality: [250, 6_000],
  retail: [180, 4_500],
  public: [800, 16_000],
  person: [180, 2_400],
};
const MIN_AMOUNT = 18_000;
const MAX_AMOUNT = 4_800_000;

const METHOD_WEIGHTS: Record<'business' | 'person' | 'large', number[]> = {
  business: [0.45, 0.3, 0.15, 0.1],
  person: [0.1, 0.3, 0.6, 0],
  large: [0.4, 0.15, 0.05, 0.4],
};

const SNAPSHOT_WEEKS = 12;

export function generateLedger(spec: LedgerSpec, sink: LedgerSink): LedgerResult {
  const { rng, ids, calendar: cal, companyId } = spec;
  const customerCount = Math.max(spec.customers, 1);
  const curatedCount = Math.min(spec.curated.length, customerCount);
  const span = spec.spanDays;

  // Per-customer state in typed arrays: 50,000 customers must not cost 50,000 objects per invoice.
  const weight = new Float64Array(customerCount);
  const lateMean = new Float64Array(customerCount);
  const defaultP = new Float64Array(customerCount);
  const terms = new Int32Array(customerCount);
  const size = new Float64Array(customerCount);
  const vip = new Uint8Array(customerCount);
  const method = new Uint8Array(customerCount);
  const contractValue = new Float64Array(customerCount);
  const contractBilled = new Float64Array(customerCount);
  const contractParent: Array<string | null> = new Array(customerCount).fill(null);
  const kinds: CustomerKind[] = new Array(customerCount);
  const names: string[] = new Array(customerCount);
  const locations: string[] = new Array(customerCount);
  const customerIds: string[] = new Array(customerCount);
  const sampleCustomers: SampleCustomer[] = [];
  let contacts = 0;
  let locationCount = 0;

  for (let i = 0; i < customerCount; i++) {
    const curated = i < curatedCount ? spec.curated[i] : null;
    let name: string;
    let kind: CustomerKind;
    let first: string;
    let last: string;
    let title: string;
    if (curated) {
      ({ name, kind } = curated);
      ({ first, last, title } = curated.contact);
    } else if (rng.chance(0.08)) {
      ({ first, last } = personName(i));
      name = `${first} ${last}`;
      kind = 'person';
      title = 'Homeowner';
    } else {
      ({ name, kind } = businessName(i - curatedCount));
      first = rng.pick(FIRST_NAMES);
      last = rng.pick(LAST_NAMES);
      title = rng.pick(BILLING_TITLES);
    }
    const isPerson = kind === 'person';
    const payer = curated ? curated.payer : PAYER_WEIGHTS[rng.weighted(PAYER_WEIGHTS.map((p) => p[1]))][0];
    const profile = PAYERS[payer];
    lateMean[i] = profile.late[0] + rng.next() * (profile.late[1] - profile.late[0]);
    defaultP[i] = profile.defaultP;
    terms[i] = curated ? curated.terms : isPerson || rng.chance(0.7) ? 30 : 45;
    size[i] = Math.exp(rng.normal() * 0.35);
    weight[i] = Math.exp(rng.normal() * 0.9) * (curated ? 2 : 1);
    vip[i] = curated ? (curated.vip ? 1 : 0) : rng.chance(0.02) ? 1 : 0;
    method[i] = rng.weighted(isPerson ? METHOD_WEIGHTS.person : kind === 'distributor' || kind === 'contractor' ? METHOD_WEIGHTS.large : METHOD_WEIGHTS.business);
    kinds[i] = kind;
    names[i] = name;

    const id = ids();
    customerIds[i] = id;
    const createdDay = -span - rng.int(30, 700);
    const created = cal.stamp(createdDay, rng.int(780, 1380));
    // Curated customers spread evenly over the owners (a few left unassigned); the rest at random.
    const arOwner = spec.arOwners.length === 0 ? null : curated ? (i % 9 === 8 ? null : spec.arOwners[i % spec.arOwners.length]) : rng.chance(0.08) ? null : rng.pick(spec.arOwners);
    const salesOwner = spec.salesOwners.length === 0 || isPerson ? null : curated ? spec.salesOwners[i % spec.salesOwners.length] : rng.chance(0.15) ? null : rng.pick(spec.salesOwners);
    sink.customer({
      id,
      company_id: companyId,
      name,
      is_person: isPerson ? 1 : 0,
      ar_owner_id: arOwner,
      sales_owner_id: salesOwner,
      remote_id: `QB-C${String(1001 + i)}`,
      currency: 'USD',
      payment_terms_days: terms[i],
      notes: vip[i] ? 'Key account: call the AP contact before any escalation.' : null,
      created_at: created,
      updated_at: created,
    });

    const city = CITIES[curated ? curated.city : rng.int(0, CITIES.length - 1)];
    const phone = `(${city.area}) 555-01${String(rng.int(0, 99)).padStart(2, '0')}`;
    const email = isPerson ? `${emailLocal(first, last)}@example.com` : rng.chance(0.5) ? `ap@${domainOf(name)}` : `${emailLocal(first, last)}@${domainOf(name)}`;
    const contactId = ids();
    sink.contact({ id: contactId, company_id: companyId, customer_id: id, name: `${first} ${last}`, email, phone, title, is_billing: 1, created_at: created, updated_at: created });
    contacts++;
    if (curated && !isPerson) {
      const other = { first: rng.pick(FIRST_NAMES), last: rng.pick(LAST_NAMES) };
      const role = kind === 'clinic' ? 'Practice Director' : kind === 'contractor' ? 'Project Manager' : 'Operations Manager';
      sink.contact({
        id: ids(),
        company_id: companyId,
        customer_id: id,
        name: `${other.first} ${other.last}`,
        email: `${emailLocal(other.first, other.last)}@${domainOf(name)}`,
        phone: `(${city.area}) 555-01${String(rng.int(0, 99)).padStart(2, '0')}`,
        title: role,
        is_billing: 0,
        created_at: created,
        updated_at: created,
      });
      contacts++;
    }

    const address = () => `${rng.int(12, 9800)} ${rng.pick(STREETS)}`;
    const zip = () => `${city.zip}${String(rng.int(1, 99)).padStart(2, '0')}`;
    const addLocation = (name: string): string => {
      const locationId = ids();
      sink.location({
        id: locationId,
        company_id: companyId,
        customer_id: id,
        name,
        address_line1: address(),
        city: city.city,
        region: city.region,
        postal_code: zip(),
        country: 'US',
        created_at: created,
        updated_at: created,
      });
      locationCount++;
      return locationId;
    };
    locations[i] = addLocation(isPerson ? 'Home' : 'Main office');
    if (curated && (kind === 'contractor' || kind === 'distributor')) addLocation(kind === 'contractor' ? 'Job site yard' : 'Warehouse');
    if (i < curatedCount) {
      sampleCustomers.push({ id, index: i, name, isPerson, kind, arOwnerId: arOwner, contact: { id: contactId, name: `${first} ${last}`, email } });
    }
  }

  // Customers are drawn by activity weight: a few large accounts, a long tail of small ones.
  const cumulative = new Float64Array(customerCount);
  let sum = 0;
  for (let i = 0; i < customerCount; i++) cumulative[i] = sum += weight[i];
  const drawCustomer = () => {
    const x = rng.next() * sum;
    let lo = 0;
    let hi = customerCount - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] > x) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };

  const invoiceCount = spec.invoices;
  const forced = forcedPositions(invoiceCount, span);
  const snapshots = Array.from({ length: SNAPSHOT_WEEKS }, (_, k) => ({ day: -7 * (k + 1), amounts: [0, 0, 0, 0, 0], count: 0 }));
  const sample: SampleInvoice[] = [];
  const settledScratch: Array<{ amount: number; payment_date: string }> = [];
  let paymentCount = 0;
  let labelCount = 0;
  let paymentNumber = 1;

  for (let n = 0; n < invoiceCount; n++) {
    const force = forced.get(n);
    const c = drawCustomer();
    const kind = kinds[c];
    const invoiceDay = force ? force.dueDay - terms[c] : -span + Math.floor((n * span) / invoiceCount);
    const dueDay = invoiceDay + terms[c];
    const id = ids();
    const number = `INV-${spec.firstInvoiceNumber + n}`;

    // Progress billing: a contractor's deposit invoice opens a contract that later invoices bill by percentage.
    let total = amountFor(rng, kind, size[c]);
    let parent: string | null = null;
    let progress: number | null = null;
    if (kind === 'contractor' && !force) {
      if (contractParent[c] !== null && contractBilled[c] < 100 && rng.chance(0.5)) {
        progress = Math.min(rng.pick([10, 15, 20, 25, 30]), 100 - contractBilled[c]);
        contractBilled[c] += progress;
        parent = contractParent[c];
        total = Math.max(MIN_AMOUNT, Math.round((contractValue[c] * progress) / 100));
      } else if ((contractParent[c] === null || contractBilled[c] >= 100) && rng.chance(0.2)) {
        contractValue[c] = Math.min(total * rng.int(4, 8), 16_000_000);
        contractBilled[c] = Math.round((total / contractValue[c]) * 100);
        contractParent[c] = id;
      }
    }

    const plan = planInvoice(rng, { invoiceDay, dueDay, total, lateMean: lateMean[c], defaultP: defaultP[c], force: force?.force });
    plan.payments.sort((a, b) => a.day - b.day);
    settledScratch.length = 0;
    for (const p of plan.payments) if (SETTLED_STATUSES.includes(p.status)) settledScratch.push({ amount: p.amount, payment_date: cal.date(p.day) });
    const totals = invoiceTotals(total, plan.closing, plan.closedDay === null ? null : cal.date(plan.closedDay), settledScratch);
    const closedDay = plan.closing ? plan.closedDay : totals.closing_reason ? lastSettledDay(plan.payments) : null;

    const created = cal.stamp(invoiceDay, rng.int(780, 1380));
    let lastDay = invoiceDay;
    for (const p of plan.payments) lastDay = Math.max(lastDay, p.voidedDay ?? p.day);
    if (closedDay !== null) lastDay = Math.max(lastDay, closedDay);
    const open = totals.closing_reason === null;
    const paymentLink = rng.chance(0.85) ? `https://pay.example.com/${spec.companySlug}/${number}` : null;
    const followUp = open && dueDay < 0 && rng.chance(0.3) ? cal.date(rng.int(-3, 10)) : null;
    sink.invoice({
      id,
      company_id: companyId,
      customer_id: customerIds[c],
      customer_name: names[c],
      customer_location_id: locations[c],
      invoice_number: number,
      invoice_date: cal.date(invoiceDay),
      due_date: cal.date(dueDay),
      currency: 'USD',
      total_amount: total,
      paid_amount: totals.paid_amount,
      balance: totals.balance,
      closing_reason: totals.closing_reason,
      closed_date: totals.closed_date,
      payment_link: paymentLink,
      next_follow_up_date: followUp,
      remote_id: `QB-${spec.firstInvoiceNumber + n}`,
      transaction_type: parent ? 'progress_invoice' : 'invoice',
      parent_invoice_id: parent,
      progress_percentage: progress,
      last_touch_at: null,
      last_touched_by: null,
      created_at: created,
      updated_at: lastDay === invoiceDay ? created : cal.stamp(lastDay, rng.int(780, 1380)),
    });

    const methods: PaymentMethod[] = [];
    for (const p of plan.payments) {
      const m: PaymentMethod = p.status === 'FAILED' ? 'CREDIT_CARD' : p.status === 'VOIDED' ? 'CHECK' : rng.chance(0.8) ? PAYMENT_METHODS[method[c]] : rng.pick(PAYMENT_METHODS);
      methods.push(m);
      const stamp = cal.stamp(p.day, rng.int(780, 1380));
      sink.payment({
        id: ids(),
        company_id: companyId,
        invoice_id: id,
        amount: p.amount,
        payment_date: cal.date(p.day),
        payment_method: m,
        payment_type: 'PAYMENT',
        status: p.status,
        transaction_id: transactionId(rng, m),
        remote_id: p.status === 'FAILED' ? null : `QB-P${paymentNumber++}`,
        notes: p.note,
        voided_at: p.voidedDay === null ? null : cal.stamp(p.voidedDay, 900),
        created_at: stamp,
        updated_at: p.voidedDay === null ? stamp : cal.stamp(p.voidedDay, 900),
      });
      paymentCount++;
    }

    const labels = labelsFor(rng, plan, open, dueDay, vip[c] === 1);
    const labelStamp = cal.stamp(Math.min(Math.max(dueDay + 3, invoiceDay), -1), 1000);
    for (const key of labels) {
      sink.invoiceLabel({ company_id: companyId, invoice_id: id, label_id: spec.labels[key], created_at: labelStamp });
      labelCount++;
    }

    for (const s of snapshots) {
      if (invoiceDay > s.day || (closedDay !== null && closedDay <= s.day)) continue;
      let outstanding = total;
      for (const p of plan.payments) if (p.day <= s.day && SETTLED_STATUSES.includes(p.status)) outstanding -= p.amount;
      const late = s.day - dueDay;
      s.amounts[late <= 0 ? 0 : late <= 30 ? 1 : late <= 60 ? 2 : late <= 90 ? 3 : 4] += outstanding;
      s.count++;
    }

    if (c < curatedCount) {
      sample.push({
        id,
        customerIndex: c,
        number,
        invoiceDay,
        dueDay,
        total,
        paid: totals.paid_amount,
        balance: totals.balance,
        closing: totals.closing_reason,
        closedDay,
        labels,
        promisedDay: plan.promisedDay,
        paymentLink,
        payments: plan.payments.map((p, k) => ({ day: p.day, amount: p.amount, status: p.status, method: methods[k] })),
      });
    }
  }

  const snapshotRows: SnapshotRow[] = [];
  for (const s of snapshots) {
    const [current, d1, d31, d61, d91] = s.amounts;
    const row: SnapshotRow = {
      id: ids(),
      company_id: companyId,
      snapshot_date: cal.date(s.day),
      current_amount: current,
      d1_30_amount: d1,
      d31_60_amount: d31,
      d61_90_amount: d61,
      d91_over_amount: d91,
      total_amount: current + d1 + d31 + d61 + d91,
      invoice_count: s.count,
      created_at: cal.stamp(s.day, 1380),
    };
    sink.snapshot(row);
    snapshotRows.push(row);
  }

  return {
    customers: sampleCustomers,
    invoices: sample,
    snapshots: snapshotRows,
    counts: { customers: customerCount, contacts, locations: locationCount, invoices: invoiceCount, payments: paymentCount, labels: labelCount, snapshots: snapshots.length },
  };
}

/** Log-uniform over the kind's range, scaled by the customer's size, in cents. */
function amountFor(rng: Rng, kind: CustomerKind, scale: number): number {
  const [lo, hi] = SIZES[kind];
  const dollars = Math.exp(Math.log(lo) + rng.next() * (Math.log(hi) - Math.log(lo))) * scale;
  return Math.min(MAX_AMOUNT, Math.max(MIN_AMOUNT, Math.round(dollars * 100)));
}

function lastSettledDay(payments: PlannedPayment[]): number | null {
  let last: number | null = null;
  for (const p of payments) if (SETTLED_STATUSES.includes(p.status) && (last === null || p.day > last)) last = p.day;
  return last;
}

/** A reference in the style of each rail: ACH trace, check number, card charge, Fedwire IMAD. */
function transactionId(rng: Rng, method: PaymentMethod): string {
  switch (method) {
    case 'ACH':
      return `ACH${String(rng.int(10_000_000, 99_999_999))}`;
    case 'CHECK':
      return `CHK-${rng.int(1_001, 48_999)}`;
    case 'CREDIT_CARD':
      return `ch_${rng.uint32().toString(16).padStart(8, '0')}${(rng.uint32() & 0xffffff).toString(16).padStart(6, '0')}`;
    case 'WIRE':
      return `FW${String(rng.int(100_000, 999_999))}${String(rng.int(1_000, 9_999))}`;
  }
}

/**
 * Labels follow the invoice's story: a dispute is Disputed, a promise is Promise to pay, a long
 * silence is Escalated, instalments are a Payment plan, and a key account's open invoices are VIP.
 */
export function labelsFor(rng: Rng, plan: ReturnType<typeof planInvoice>, open: boolean, dueDay: number, vip: boolean): Array<keyof LedgerLabels> {
  if (!open) return [];
  const out: Array<keyof LedgerLabels> = [];
  if (plan.disputed) out.push('disputed');
  if (plan.promisedDay !== null) out.push('promise');
  if (plan.escalate && rng.chance(0.5)) out.push('escalated');
  if (dueDay < -30 && plan.payments.some((p) => p.status === 'PARTIAL') && rng.chance(0.5)) out.push('plan');
  if (vip) out.push('vip');
  return out;
}

/**
 * Positions of the forced outcomes in the invoice sequence: each goes where its invoice date
 * falls, so invoice numbers stay in (nearly) date order.
 */
export function forcedPositions(invoiceCount: number, span: number): Map<number, { dueDay: number; force: ForcedOutcome }> {
  const out = new Map<number, { dueDay: number; force: ForcedOutcome }>();
  if (invoiceCount < FORCED.length * 2) return out;
  for (const f of FORCED) {
    let at = Math.min(invoiceCount - 1, Math.max(0, Math.round(((f.dueDay - 30 + span) * invoiceCount) / span)));
    while (out.has(at)) at = (at + 1) % invoiceCount;
    out.set(at, f);
  }
  return out;
}
