/**
 * Planning an import: match every parsed row against what the company already has and decide,
 * row by row, what to create, what to change and what is already so. Planning only reads; the
 * dry run stops here, the real run applies the plan in the same transaction it was made in.
 */
import { type Kysely, sql } from 'kysely';
import { addDays } from '../dates';
import type { ClosingReason, Customer, Database, Invoice, PaymentStatus } from '../db/schema';
import { newId } from '../ids';
import { DEFAULT_LABEL_COLOR } from '../labels/labels';
import { invoiceTotals, SETTLED_STATUSES } from '../payments/balance';
import { acceptsPayments, settledStatus } from '../payments/rules';
import { yieldToEventLoop } from '../yielding';
import type { CompiledMapping, Section } from './mapping';
import { fieldWords } from './fields';
import type { CustomerFields, InvoiceFields, ParsedRow, PaymentFields, RowError } from './rows';
import { chunks } from '../chunks';

export type Outcome = 'created' | 'updated' | 'unchanged';
export interface Counts {
  created: number;
  updated: number;
  unchanged: number;
}

export type WriteTable = 'labels' | 'customers' | 'customer_locations' | 'customer_contacts' | 'invoices' | 'payments';

/** One row written: inserted whole, or updated in the listed fields only. */
export interface RowWrite {
  table: WriteTable;
  entity: string;
  id: string;
  insert?: Record<string, unknown>;
  update?: Record<string, unknown>;
}

export interface LabelLink {
  invoiceId: string;
  labelId: string;
  add: boolean;
}

export interface TouchedInvoice {
  id: string;
  /** The stored money state before the recompute, to record only a real change. */
  before: { paid_amount: number; balance: number; closing_reason: ClosingReason | null; closed_date: string | null };
}

export interface Plan {
  companyId: string;
  errors: RowError[];
  counts: { customers: Counts; invoices: Counts; payments: Counts };
  labelsCreated: string[];
  writes: RowWrite[];
  links: LabelLink[];
  touched: TouchedInvoice[];
  /** What the import decided that the file did not say in so many words, for the dry run to show. */
  notes: string[];
}

export interface PlanInput {
  companyId: string;
  currency: string;
  today: string;
  mapping: CompiledMapping;
  rows: ParsedRow[];
}

const DEFAULT_TERMS_DAYS = 30;

async function inChunks<T>(values: string[], load: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  const unique = [...new Set(values)];
  const out: T[] = [];
  for (const chunk of chunks(unique)) {
    out.push(...(await load(chunk)));
    await yieldToEventLoop();
  }
  return out;
}

function groupBy<T, K>(items: T[], key: (t: T) => K): Map<K, T[]> {
  const map = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = map.get(k);
    if (list) list.push(item);
    else map.set(k, [item]);
  }
  return map;
}

/** The fields of `incoming` that differ from `current` (undefined means "not given": no change). */
function diff(current: Record<string, unknown>, incoming: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(incoming)) if (v !== undefined && current[k] !== v) out[k] = v;
  return out;
}

function defined<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

interface CustomerTarget {
  id: string;
  name: string;
  currency: string;
  terms: number;
}

interface InvoiceTarget {
  id: string;
  number: string;
  total: number;
  paid: number;
  closing: ClosingReason | null;
  isNew: boolean;
}

interface InvoiceGroup {
  rows: ParsedRow[];
  /** The invoice's values merged over its rows. */
  inv: InvoiceFields;
  customer: CustomerTarget;
}

const INVOICE_FIELDS = ['invoice_number', 'remote_id', 'invoice_date', 'due_date', 'total_amount', 'currency', 'payment_link', 'bill_channel'] as const;

/** The first value of `next` that disagrees with the invoice merged so far, for the row error. */
function invoiceConflict(merged: InvoiceFields, next: InvoiceFields, sumLines: boolean): { field: string; value: string; first: string } | null {
  const show = (field: string, v: unknown) => (field === 'total_amount' ? (Number(v) / 100).toFixed(2) : `"${String(v)}"`);
  for (const field of INVOICE_FIELDS) {
    if (sumLines && field === 'total_amount') continue;
    const a = merged[field];
    const b = next[field];
    if (a !== undefined && b !== undefined && a !== b) return { field, value: show(field, b), first: show(field, a) };
  }
  for (const label of next.labels) {
    const first = merged.labels.find((l) => l.label === label.label);
    if (first && first.on !== label.on) return { field: `label ${label.label}`, value: label.on ? 'yes' : 'no', first: first.on ? 'yes' : 'no' };
  }
  return null;
}

class Planner {
  readonly plan: Plan;
  private readonly touchedIds = new Set<string>();
  /** Customer and invoice each row resolved to (ar-rows rows refer to their own). */
  private readonly rowCustomer = new Map<number, CustomerTarget>();
  private readonly rowInvoice = new Map<number, InvoiceTarget>();
  private readonly failedRows = new Set<number>();
  /** Invoices closed by a payment dated the import date, for lack of a date in the file. */
  private settledOnImportDate = 0;
  /** Stored money state of invoices that payments may touch, for the recompute's change record. */
  private readonly touchable = new Map<string, TouchedInvoice['before']>();
  /**
   * New invoices with the settled payments this import gives them: their money state is computed
   * by the invoice rule before they are inserted, so a fresh import needs no recompute per invoice.
   */
  private readonly fresh = new Map<string, { insert: Record<string, unknown>; total: number; settled: Array<{ amount: number; payment_date: string }> }>();
  constructor(
    private readonly db: Kysely<Database>,
    private readonly input: PlanInput,
    private readonly now: string,
  ) {
    this.plan = {
      companyId: input.companyId,
      errors: [],
      counts: { customers: emptyCounts(), invoices: emptyCounts(), payments: emptyCounts() },
      labelsCreated: [],
      writes: [],
      links: [],
      touched: [],
      notes: [],
    };
  }

  error(row: number, section: Section | null, field: string | null, message: string) {
    const getters = section ? (this.input.mapping[section] as Record<string, { column: string | null }> | undefined) : undefined;
    const rule = field?.startsWith('label ') ? this.input.mapping.labels.find((l) => `label ${l.label}` === field) : undefined;
    const column = rule ? rule.column : field && getters?.[field] ? getters[field].column : null;
    this.plan.errors.push({ row, column, message: field ? `${section && !rule ? fieldWords(section, field) : field}: ${message}` : message });
    this.failedRows.add(row);
  }

  count(entity: keyof Plan['counts'], outcome: Outcome) {
    this.plan.counts[entity][outcome]++;
  }

  touch(id: string, before: TouchedInvoice['before']) {
    if (this.touchedIds.has(id)) return;
    this.touchedIds.add(id);
    this.plan.touched.push({ id, before });
  }

  write(w: RowWrite) {
    this.plan.writes.push(w);
  }

  stamp() {
    return { created_at: this.now, updated_at: this.now };
  }

  async run(): Promise<Plan> {
    const { mapping, rows } = this.input;
    if (mapping.customers) await this.planCustomers(rows.filter((r) => r.customer));
    if (mapping.entity === 'invoices') await this.resolveCustomerRefs(rows.filter((r) => r.invoice));
    if (mapping.invoices) await this.planInvoices(rows.filter((r) => r.invoice && !this.failedRows.has(r.row)));
    if (mapping.entity === 'payments') await this.resolveInvoiceRefs(rows.filter((r) => r.payment));
    if (mapping.payments) await this.planPayments(rows.filter((r) => r.payment && !this.failedRows.has(r.row)));
    for (const [id, f] of this.fresh) if (!this.touchedIds.has(id)) Object.assign(f.insert, invoiceTotals(f.total, null, null, f.settled));
    if (this.settledOnImportDate) {
      const n = this.settledOnImportDate;
      this.plan.notes.push(
        `${n === 1 ? '1 payment' : `${n} payments`} the file shows without a date (an invoice marked paid, or an open amount below the total): dated ${this.input.today}, the import date`,
      );
    }
    const credits = this.plan.writes.filter((w) => w.table === 'invoices' && w.insert?.transaction_type === 'credit_note').length;
    if (credits === 1) this.plan.notes.push('1 credit note imported as a credit (a negative open amount) to its customer');
    else if (credits > 1) this.plan.notes.push(`${credits} credit notes imported as credits (negative open amounts) to their customers`);
    this.plan.errors.sort((a, b) => a.row - b.row);
    return this.plan;
  }

  // ---- customers ---------------------------------------------------------------------------

  private async planCustomers(rows: ParsedRow[]) {
    const { companyId } = this.input;
    // Rows of one customer (same remote_id, else same name) merge; a disagreeing value is an error.
    const groups = groupBy(rows, (r) => (r.customer!.remote_id !== undefined ? `r:${r.customer!.remote_id}` : `n:${r.customer!.name}`));
    const merged: Array<{ rows: ParsedRow[]; fields: CustomerFields }> = [];
    for (const group of groups.values()) {
      const fields: Record<string, unknown> = {};
      const firstRow: Record<string, number> = {};
      let ok = true;
      for (const r of group) {
        for (const [k, v] of Object.entries(r.customer!)) {
          if (fields[k] === undefined) {
            fields[k] = v;
            firstRow[k] = r.row;
          } else if (fields[k] !== v) {
            this.error(r.row, 'customers', k, `"${v}" differs from "${fields[k]}" given for the same customer on row ${firstRow[k]}`);
            ok = false;
          }
        }
      }
      if (ok) merged.push({ rows: group, fields: fields as CustomerFields });
    }

    const remoteIds = merged.flatMap((m) => (m.fields.remote_id !== undefined ? [m.fields.remote_id] : []));
    const byRemote = new Map(
      (await inChunks(remoteIds, (chunk) => this.db.selectFrom('customers').selectAll().where('company_id', '=', companyId).where('remote_id', 'in', chunk).execute())).map((c) => [
        c.remote_id!,
        c,
      ]),
    );
    const names = merged.flatMap((m) => (m.fields.name !== undefined && (m.fields.remote_id === undefined || !byRemote.has(m.fields.remote_id)) ? [m.fields.name] : []));
    const byName = groupBy(
      await inChunks(names, (chunk) => this.db.selectFrom('customers').selectAll().where('company_id', '=', companyId).where('name', 'in', chunk).execute()),
      (c) => c.name,
    );

    const claimed = new Map<string, number>();
    const resolved: Array<{ rows: ParsedRow[]; fields: CustomerFields; existing: Customer | undefined }> = [];
    for (const m of merged) {
      const first = m.rows[0].row;
      let existing = m.fields.remote_id !== undefined ? byRemote.get(m.fields.remote_id) : undefined;
      if (!existing && m.fields.name !== undefined) {
        const named = byName.get(m.fields.name) ?? [];
        if (m.fields.remote_id !== undefined) {
          // A customer typed in by hand before the first import is linked by its exact name.
          const unlinked = named.filter((c) => c.remote_id === null);
          if (unlinked.length === 1) existing = unlinked[0];
        } else if (named.length > 1) {
          this.failGroup(m.rows, 'name', `${named.length} customers are named "${m.fields.name}"; map remote_id to tell them apart`);
          continue;
        } else existing = named[0];
      }
      if (existing) {
        const other = claimed.get(existing.id);
        if (other !== undefined) {
          this.failGroup(m.rows, null, `matches the same customer as row ${other}`);
          continue;
        }
        claimed.set(existing.id, first);
      } else if (m.fields.name === undefined) {
        this.failGroup(m.rows, 'name', 'is required for a new customer');
        continue;
      }
      resolved.push({ ...m, existing });
    }

    const existingIds = resolved.flatMap((r) => (r.existing ? [r.existing.id] : []));
    const wantsLocation = resolved.some((r) => hasLocation(r.fields));
    const wantsContact = resolved.some((r) => hasContact(r.fields));
    const locations = wantsLocation
      ? groupBy(
          await inChunks(existingIds, (chunk) =>
            this.db.selectFrom('customer_locations').selectAll().where('company_id', '=', companyId).where('customer_id', 'in', chunk).orderBy('created_at').orderBy('id').execute(),
          ),
          (l) => l.customer_id,
        )
      : new Map();
    const contacts = wantsContact
      ? groupBy(
          await inChunks(existingIds, (chunk) =>
            this.db.selectFrom('customer_contacts').selectAll().where('company_id', '=', companyId).where('customer_id', 'in', chunk).orderBy('created_at').orderBy('id').execute(),
          ),
          (c) => c.customer_id,
        )
      : new Map();

    for (const { rows: group, fields: f, existing } of resolved) {
      const own = defined({
        name: f.name,
        remote_id: f.remote_id,
        is_person: f.is_person,
        currency: f.currency,
        payment_terms_days: f.payment_terms_days,
        notes: f.notes,
      });
      let id: string;
      let changed = false;
      let target: CustomerTarget;
      if (existing) {
        id = existing.id;
        const update = diff(existing, own);
        if (Object.keys(update).length) {
          this.write({ table: 'customers', entity: 'customer', id, update });
          changed = true;
        }
        const after = { ...existing, ...update };
        target = { id, name: after.name, currency: after.currency, terms: after.payment_terms_days };
      } else {
        id = newId();
        const insert = {
          id,
          company_id: this.input.companyId,
          name: f.name!,
          is_person: f.is_person ?? 0,
          ar_owner_id: null,
          sales_owner_id: null,
          remote_id: f.remote_id ?? null,
          currency: f.currency ?? this.input.currency,
          payment_terms_days: f.payment_terms_days ?? DEFAULT_TERMS_DAYS,
          notes: f.notes ?? null,
          ...this.stamp(),
        };
        this.write({ table: 'customers', entity: 'customer', id, insert });
        target = { id, name: insert.name, currency: insert.currency, terms: insert.payment_terms_days };
      }
      if (hasLocation(f)) changed = this.planLocation(id, f, locations.get(id) ?? []) || changed;
      if (hasContact(f)) changed = this.planContact(id, f, contacts.get(id) ?? []) || changed;
      this.count('customers', existing ? (changed ? 'updated' : 'unchanged') : 'created');
      for (const r of group) this.rowCustomer.set(r.row, target);
    }
  }

  private failGroup(rows: ParsedRow[], field: string | null, message: string) {
    for (const r of rows) this.error(r.row, 'customers', field, message);
  }

  /** The customer's location of the given name (default "Main") is created or brought up to date. */
  private planLocation(customerId: string, f: CustomerFields, existing: Array<Record<string, unknown> & { id: string; name: string }>): boolean {
    const name = f.location_name ?? 'Main';
    const values = defined({ address_line1: f.address_line1, city: f.city, region: f.region, postal_code: f.postal_code, country: f.country });
    const current = existing.find((l) => l.name === name);
    if (current) {
      const update = diff(current, values);
      if (!Object.keys(update).length) return false;
      this.write({ table: 'customer_locations', entity: 'customer_location', id: current.id, update });
      return true;
    }
    const id = newId();
    this.write({
      table: 'customer_locations',
      entity: 'customer_location',
      id,
      insert: { id, company_id: this.input.companyId, customer_id: customerId, name, address_line1: null, city: null, region: null, postal_code: null, country: null, ...values, ...this.stamp() },
    });
    return true;
  }

  /**
   * The file's contact is the customer's billing contact (a customer has at most one): the current
   * billing contact is updated; without one, a contact with that email (any case), else that
   * name, becomes it; else a new contact is created.
   */
  private planContact(
    customerId: string,
    f: CustomerFields,
    existing: Array<Record<string, unknown> & { id: string; name: string; email: string | null; is_billing: number }>,
  ): boolean {
    const email = f.contact_email;
    const current =
      existing.find((c) => c.is_billing === 1) ??
      (email !== undefined ? existing.find((c) => c.email?.toLowerCase() === email.toLowerCase()) : existing.find((c) => c.name === f.contact_name));
    const values = defined({ name: f.contact_name, email, phone: f.contact_phone, is_billing: 1 as const });
    if (current) {
      const update = diff(current, values);
      if (!Object.keys(update).length) return false;
      this.write({ table: 'customer_contacts', entity: 'customer_contact', id: current.id, update });
      return true;
    }
    const id = newId();
    this.write({
      table: 'customer_contacts',
      entity: 'customer_contact',
      id,
      insert: { id, company_id: this.input.companyId, customer_id: customerId, name: f.contact_name ?? email!, email: null, phone: null, title: null, ...values, ...this.stamp() },
    });
    return true;
  }

  /** For an invoices file: each row names an existing customer by remote_id, else by exact name. */
  private async resolveCustomerRefs(rows: ParsedRow[]) {
    const { companyId } = this.input;
    const remote = rows.flatMap((r) => (r.invoice!.customer_remote_id !== undefined ? [r.invoice!.customer_remote_id] : []));
    const names = rows.flatMap((r) => (r.invoice!.customer_remote_id === undefined && r.invoice!.customer_name !== undefined ? [r.invoice!.customer_name] : []));
    const select = ['id', 'name', 'remote_id', 'currency', 'payment_terms_days'] as const;
    const byRemote = new Map(
      (await inChunks(remote, (chunk) => this.db.selectFrom('customers').select(select).where('company_id', '=', companyId).where('remote_id', 'in', chunk).execute())).map((c) => [c.remote_id!, c]),
    );
    const byName = groupBy(
      await inChunks(names, (chunk) => this.db.selectFrom('customers').select(select).where('company_id', '=', companyId).where('name', 'in', chunk).execute()),
      (c) => c.name,
    );
    for (const r of rows) {
      const { customer_remote_id: rid, customer_name: name } = r.invoice!;
      let found;
      if (rid !== undefined) {
        found = byRemote.get(rid);
        if (!found) this.error(r.row, 'invoices', 'customer_remote_id', `no customer has remote_id "${rid}"; import the customers first`);
      } else {
        const named = byName.get(name!) ?? [];
        if (named.length > 1) this.error(r.row, 'invoices', 'customer_name', `${named.length} customers are named "${name}"; use customer_remote_id`);
        else if (named.length === 0) this.error(r.row, 'invoices', 'customer_name', `no customer is named "${name}"; import the customers first`);
        else found = named[0];
      }
      if (found) this.rowCustomer.set(r.row, { id: found.id, name: found.name, currency: found.currency, terms: found.payment_terms_days });
    }
  }

  // ---- invoices ----------------------------------------------------------------------------

  /**
   * Rows of one invoice (same remote_id, else same number) merge, so a file with a row per payment
   * works; a disagreeing value is an error. Two invoices may not share a number.
   */
  private groupInvoices(rows: ParsedRow[]): InvoiceGroup[] {
    const groups = new Map<string, InvoiceGroup>();
    const numberRow = new Map<string, number>();
    for (const r of rows) {
      const inv = r.invoice!;
      const customer = this.rowCustomer.get(r.row);
      if (!customer) continue;
      const key = inv.remote_id !== undefined ? `r:${inv.remote_id}` : `n:${inv.invoice_number}`;
      const group = groups.get(key);
      if (!group) {
        const other = numberRow.get(inv.invoice_number);
        if (other !== undefined) {
          this.error(r.row, 'invoices', 'invoice_number', `"${inv.invoice_number}" is also on row ${other}, for another invoice`);
          continue;
        }
        numberRow.set(inv.invoice_number, r.row);
        groups.set(key, { rows: [r], inv: { ...inv, labels: [...inv.labels] }, customer });
        continue;
      }
      const first = group.rows[0].row;
      const conflict = invoiceConflict(group.inv, inv, this.input.mapping.sumLines);
      if (conflict) {
        this.error(r.row, 'invoices', conflict.field, `${conflict.value} differs from ${conflict.first} given for the same invoice on row ${first}`);
      } else if (group.customer.id !== customer.id) {
        this.error(r.row, 'invoices', null, `the invoice is for customer "${group.customer.name}" on row ${first} but for "${customer.name}" here`);
      } else {
        for (const [k, v] of Object.entries(inv)) if (k !== 'labels' && v !== undefined) (group.inv as unknown as Record<string, unknown>)[k] ??= v;
        if (this.input.mapping.sumLines) group.inv.total_amount += inv.total_amount;
        group.rows.push(r);
      }
    }
    return [...groups.values()];
  }

  private async planInvoices(rows: ParsedRow[]) {
    const { companyId } = this.input;
    const groups = this.groupInvoices(rows);
    const base = () => this.db.selectFrom('invoices').selectAll().where('company_id', '=', companyId);
    const byRemote = new Map(
      (await inChunks(
        groups.flatMap((g) => (g.inv.remote_id !== undefined ? [g.inv.remote_id] : [])),
        (chunk) => base().where('remote_id', 'in', chunk).execute(),
      )).map((i) => [i.remote_id!, i]),
    );
    const byNumber = new Map(
      (await inChunks(
        groups.map((g) => g.inv.invoice_number),
        (chunk) => base().where('invoice_number', 'in', chunk).execute(),
      )).map((i) => [i.invoice_number, i]),
    );
    const labelIds = await this.planLabels(groups.map((g) => g.inv));
    const matchedIds = [...byRemote.values(), ...byNumber.values()].map((i) => i.id);
    const linked = new Set(
      labelIds.size && matchedIds.length
        ? (
            await inChunks(matchedIds, (chunk) =>
              this.db
                .selectFrom('invoice_labels')
                .select(['invoice_id', 'label_id'])
                .where('invoice_id', 'in', chunk)
                .where('label_id', 'in', [...labelIds.values()])
                .execute(),
            )
          ).map((l) => `${l.invoice_id}:${l.label_id}`)
        : [],
    );

    const claimed = new Map<string, number>();
    for (const group of groups) {
      const { inv } = group;
      const fail = (message: string) => {
        for (const r of group.rows) this.error(r.row, 'invoices', 'invoice_number', message);
      };
      let existing = inv.remote_id !== undefined ? byRemote.get(inv.remote_id) : undefined;
      if (existing) {
        const holder = byNumber.get(inv.invoice_number);
        if (holder && holder.id !== existing.id) {
          fail(`"${inv.invoice_number}" belongs to another invoice (remote_id ${holder.remote_id ?? 'none'})`);
          continue;
        }
      } else {
        existing = byNumber.get(inv.invoice_number);
        if (existing && inv.remote_id !== undefined && existing.remote_id !== null) {
          fail(`"${inv.invoice_number}" already belongs to the invoice with remote_id ${existing.remote_id}`);
          continue;
        }
      }
      if (existing) {
        const other = claimed.get(existing.id);
        if (other !== undefined) {
          fail(`matches the same invoice as row ${other}`);
          continue;
        }
        claimed.set(existing.id, group.rows[0].row);
      }
      this.planInvoice(group, existing, labelIds, linked);
      this.planSettlement(group);
    }
  }

  /**
   * An invoice the file calls paid (or whose open amount is below its total) with no payment row
   * of its own gets the missing payment: on the file's paid date, else the import's date, which the
   * dry run says. Against what is stored already, so a re-import adds nothing.
   */
  private planSettlement({ rows, inv }: InvoiceGroup) {
    const invoice = this.rowInvoice.get(rows[0].row);
    if (!invoice || rows.some((r) => r.payment)) return;
    const wanted = inv.open_amount !== undefined ? inv.total_amount - inv.open_amount : inv.status === 'paid' ? inv.total_amount : undefined;
    if (wanted === undefined || wanted <= invoice.paid || !acceptsPayments(invoice.closing)) return;
    const { today, companyId } = this.input;
    const dated = inv.paid_date !== undefined && inv.paid_date <= today;
    const amount = wanted - invoice.paid;
    const payment_date = dated ? inv.paid_date! : today;
    if (!dated) this.settledOnImportDate++;
    const id = newId();
    this.write({
      table: 'payments',
      entity: 'payment',
      id,
      insert: {
        id,
        company_id: companyId,
        invoice_id: invoice.id,
        amount,
        payment_date,
        payment_method: 'OTHER',
        payment_type: 'PAYMENT',
        status: settledStatus(amount, invoice.total - invoice.paid),
        transaction_id: null,
        remote_id: null,
        notes: dated ? 'Paid as the imported file says' : 'Paid as the imported file says; it gives no payment date, so the import date stands for it',
        voided_at: null,
        ...this.stamp(),
      },
    });
    this.fresh.get(invoice.id)?.settled.push({ amount, payment_date });
    this.rowInvoice.set(rows[0].row, { ...invoice, paid: wanted });
    this.touchPayment(invoice);
    this.count('payments', 'created');
  }

  private planInvoice({ rows, inv, customer }: InvoiceGroup, existing: Invoice | undefined, labelIds: Map<string, string>, linked: Set<string>) {
    let id: string;
    let changed = false;
    if (existing) {
      id = existing.id;
      this.touchable.set(id, { paid_amount: existing.paid_amount, balance: existing.balance, closing_reason: existing.closing_reason, closed_date: existing.closed_date });
      const update = diff(
        existing,
        defined({
          invoice_number: inv.invoice_number,
          remote_id: inv.remote_id,
          invoice_date: inv.invoice_date,
          due_date: inv.due_date,
          total_amount: inv.total_amount,
          currency: inv.currency,
          payment_link: inv.payment_link,
          bill_channel: inv.bill_channel,
        }),
      );
      if (existing.customer_id !== customer.id) Object.assign(update, { customer_id: customer.id, customer_name: customer.name });
      if (Object.keys(update).length) {
        this.write({ table: 'invoices', entity: 'invoice', id, update });
        changed = true;
        this.touch(id, this.touchable.get(id)!);
      }
      const target = { id, number: inv.invoice_number, total: inv.total_amount, paid: existing.paid_amount, closing: existing.closing_reason, isNew: false };
      for (const r of rows) this.rowInvoice.set(r.row, target);
    } else {
      id = newId();
      const insert = {
        id,
        company_id: this.input.companyId,
        customer_id: customer.id,
        customer_name: customer.name,
        customer_location_id: null,
        invoice_number: inv.invoice_number,
        invoice_date: inv.invoice_date,
        due_date: inv.due_date ?? addDays(inv.invoice_date, customer.terms),
        currency: inv.currency ?? customer.currency,
        total_amount: inv.total_amount,
        paid_amount: 0,
        balance: inv.total_amount,
        closing_reason: null,
        closed_date: null,
        payment_link: inv.payment_link ?? null,
        bill_channel: inv.bill_channel ?? null,
        next_follow_up_date: null,
        remote_id: inv.remote_id ?? null,
        transaction_type: inv.credit ? 'credit_note' : 'invoice',
        parent_invoice_id: null,
        progress_percentage: null,
        last_touch_at: null,
        last_touched_by: null,
        ...this.stamp(),
      };
      this.write({ table: 'invoices', entity: 'invoice', id, insert });
      this.fresh.set(id, { insert, total: inv.total_amount, settled: [] });
      const target = { id, number: inv.invoice_number, total: inv.total_amount, paid: 0, closing: null, isNew: true };
      for (const r of rows) this.rowInvoice.set(r.row, target);
    }
    for (const { label, on } of inv.labels) {
      const labelId = labelIds.get(label);
      // A label nobody in the file turns on was never looked up or created: nothing to remove.
      if (labelId === undefined) continue;
      const has = existing ? linked.has(`${id}:${labelId}`) : false;
      if (on !== has) {
        this.plan.links.push({ invoiceId: id, labelId, add: on });
        changed = true;
      }
    }
    this.count('invoices', existing ? (changed ? 'updated' : 'unchanged') : 'created');
  }

  /** Label names to ids: existing labels, and new ones for labels some row turns on. */
  private async planLabels(invoices: InvoiceFields[]): Promise<Map<string, string>> {
    const names = [...new Set(invoices.flatMap((i) => i.labels.map((l) => l.label)))];
    if (!names.length) return new Map();
    // Label names are unique regardless of case, so "disputed" finds "Disputed".
    const existing = await this.db
      .selectFrom('labels')
      .select(['id', 'name'])
      .where('company_id', '=', this.input.companyId)
      .where(sql<string>`lower(name)`, 'in', names.map((n) => n.toLowerCase()))
      .execute();
    const byLower = new Map(existing.map((l) => [l.name.toLowerCase(), l.id]));
    const wanted = new Set(invoices.flatMap((i) => i.labels.filter((l) => l.on).map((l) => l.label.toLowerCase())));
    const ids = new Map<string, string>();
    for (const name of names) {
      const key = name.toLowerCase();
      if (!byLower.has(key) && wanted.has(key)) {
        const id = newId();
        byLower.set(key, id);
        const meaning = this.input.mapping.labels.find((l) => l.label.toLowerCase() === key)?.meaning ?? null;
        this.write({ table: 'labels', entity: 'label', id, insert: { id, company_id: this.input.companyId, name, color: DEFAULT_LABEL_COLOR, meaning, ...this.stamp() } });
        this.plan.labelsCreated.push(name);
      }
      const id = byLower.get(key);
      if (id) ids.set(name, id);
    }
    return ids;
  }

  /** For a payments file: each row names an existing invoice by remote_id, else by number. */
  private async resolveInvoiceRefs(rows: ParsedRow[]) {
    const { companyId } = this.input;
    const select = ['id', 'invoice_number', 'remote_id', 'total_amount', 'paid_amount', 'balance', 'closing_reason', 'closed_date'] as const;
    const base = () => this.db.selectFrom('invoices').select(select).where('company_id', '=', companyId);
    const remote = rows.flatMap((r) => (r.payment!.invoice_remote_id !== undefined ? [r.payment!.invoice_remote_id] : []));
    const numbers = rows.flatMap((r) => (r.payment!.invoice_remote_id === undefined ? [r.payment!.invoice_number!] : []));
    const byRemote = new Map((await inChunks(remote, (chunk) => base().where('remote_id', 'in', chunk).execute())).map((i) => [i.remote_id!, i]));
    const byNumber = new Map((await inChunks(numbers, (chunk) => base().where('invoice_number', 'in', chunk).execute())).map((i) => [i.invoice_number, i]));
    for (const r of rows) {
      const { invoice_remote_id: rid, invoice_number: number } = r.payment!;
      const found = rid !== undefined ? byRemote.get(rid) : byNumber.get(number!);
      if (!found) {
        if (rid !== undefined) this.error(r.row, 'payments', 'invoice_remote_id', `no invoice has remote_id "${rid}"`);
        else this.error(r.row, 'payments', 'invoice_number', `no invoice has the number "${number}"`);
        continue;
      }
      this.rowInvoice.set(r.row, { id: found.id, number: found.invoice_number, total: found.total_amount, paid: found.paid_amount, closing: found.closing_reason, isNew: false });
      this.touchable.set(found.id, { paid_amount: found.paid_amount, balance: found.balance, closing_reason: found.closing_reason, closed_date: found.closed_date });
    }
  }

  // ---- payments ----------------------------------------------------------------------------

  private async planPayments(rows: ParsedRow[]) {
    const { companyId } = this.input;
    const seenRemote = new Map<string, number>();
    const targets: Array<{ row: number; p: PaymentFields; invoice: InvoiceTarget }> = [];
    for (const r of rows) {
      const invoice = this.rowInvoice.get(r.row);
      if (!invoice) continue;
      const p = r.payment!;
      const seen = p.remote_id !== undefined ? seenRemote.get(p.remote_id) : undefined;
      if (seen !== undefined) {
        this.error(r.row, 'payments', 'remote_id', `"${p.remote_id}" is also on row ${seen}`);
        continue;
      }
      if (p.remote_id !== undefined) seenRemote.set(p.remote_id, r.row);
      targets.push({ row: r.row, p, invoice });
    }
    const byRemote = new Map(
      (await inChunks(
        targets.flatMap((t) => (t.p.remote_id !== undefined ? [t.p.remote_id] : [])),
        (chunk) => this.db.selectFrom('payments').selectAll().where('company_id', '=', companyId).where('remote_id', 'in', chunk).execute(),
      )).map((p) => [p.remote_id!, p]),
    );
    // Payments without a remote_id match by invoice, date and amount: the n-th such row of the
    // file matches the n-th such stored payment, so equal instalments re-import cleanly too.
    const keyless = targets.filter((t) => t.p.remote_id === undefined && !t.invoice.isNew);
    const stored = groupBy(
      await inChunks(
        keyless.map((t) => t.invoice.id),
        (chunk) =>
          this.db
            .selectFrom('payments')
            .selectAll()
            .where('company_id', '=', companyId)
            .where('invoice_id', 'in', chunk)
            .where('remote_id', 'is', null)
            .orderBy('created_at')
            .orderBy('id')
            .execute(),
      ),
      (p) => `${p.invoice_id}|${p.payment_date}|${p.amount}`,
    );
    const movedFrom = [...byRemote.values()].filter((p) => targets.some((t) => t.p.remote_id === p.remote_id && t.invoice.id !== p.invoice_id)).map((p) => p.invoice_id);
    for (const inv of await inChunks(movedFrom, (chunk) =>
      this.db.selectFrom('invoices').select(['id', 'paid_amount', 'balance', 'closing_reason', 'closed_date']).where('id', 'in', chunk).execute(),
    )) {
      this.touchable.set(inv.id, { paid_amount: inv.paid_amount, balance: inv.balance, closing_reason: inv.closing_reason, closed_date: inv.closed_date });
    }

    const occurrence = new Map<string, number>();
    /** Settled amounts this import adds per invoice so far, for the PAID / PARTIAL default. */
    const added = new Map<string, number>();
    for (const { row, p, invoice } of targets) {
      let existing;
      if (p.remote_id !== undefined) existing = byRemote.get(p.remote_id);
      else if (!invoice.isNew) {
        const key = `${invoice.id}|${p.payment_date}|${p.amount}`;
        const n = occurrence.get(key) ?? 0;
        occurrence.set(key, n + 1);
        existing = stored.get(key)?.[n];
      }
      if (existing?.status === 'VOIDED') {
        // A payment voided in ardesk stays voided: the file cannot bring it back.
        this.count('payments', 'unchanged');
        continue;
      }
      const values = defined({
        invoice_id: invoice.id,
        amount: p.amount,
        payment_date: p.payment_date,
        payment_method: p.payment_method,
        payment_type: p.payment_type,
        status: p.status,
        transaction_id: p.transaction_id,
        notes: p.notes,
      });
      if (existing) {
        const update = diff(existing, values);
        if (!Object.keys(update).length) {
          this.count('payments', 'unchanged');
          continue;
        }
        if (update.status !== undefined && !statusMayChange(existing.status, update.status as PaymentStatus)) {
          this.error(row, 'payments', 'status', `a ${existing.status} payment cannot become ${update.status}`);
          continue;
        }
        if (update.status === 'VOIDED') update.voided_at = this.now;
        if (!acceptsPayments(invoice.closing)) {
          this.error(row, 'payments', null, `invoice ${invoice.number} is closed as ${invoice.closing}: it takes no payments`);
          continue;
        }
        this.write({ table: 'payments', entity: 'payment', id: existing.id, update });
        this.touchPayment(invoice, update.invoice_id !== undefined);
        if (update.invoice_id !== undefined) this.touch(existing.invoice_id, this.touchable.get(existing.invoice_id)!);
        this.count('payments', 'updated');
        continue;
      }
      if (!acceptsPayments(invoice.closing)) {
        this.error(row, 'payments', null, `invoice ${invoice.number} is closed as ${invoice.closing}: it takes no payments`);
        continue;
      }
      const open = invoice.total - invoice.paid - (added.get(invoice.id) ?? 0);
      const status = p.status ?? settledStatus(p.amount, open);
      if (SETTLED_STATUSES.includes(status)) {
        added.set(invoice.id, (added.get(invoice.id) ?? 0) + p.amount);
        this.fresh.get(invoice.id)?.settled.push({ amount: p.amount, payment_date: p.payment_date });
      }
      const id = newId();
      this.write({
        table: 'payments',
        entity: 'payment',
        id,
        insert: {
          id,
          company_id: companyId,
          invoice_id: invoice.id,
          amount: p.amount,
          payment_date: p.payment_date,
          payment_method: p.payment_method ?? 'OTHER',
          payment_type: p.payment_type ?? 'PAYMENT',
          status,
          transaction_id: p.transaction_id ?? null,
          remote_id: p.remote_id ?? null,
          notes: p.notes ?? null,
          voided_at: status === 'VOIDED' ? this.now : null,
          ...this.stamp(),
        },
      });
      this.touchPayment(invoice);
      this.count('payments', 'created');
    }
  }

  /**
   * A stored invoice is recomputed when any of its payments changes. A new one is too when a
   * stored payment moves onto it (the import does not hold that payment's whole history).
   */
  private touchPayment(invoice: InvoiceTarget, moved = false) {
    if (this.touchedIds.has(invoice.id)) return;
    if (!invoice.isNew) this.touch(invoice.id, this.touchable.get(invoice.id)!);
    else if (moved) this.touch(invoice.id, { paid_amount: 0, balance: invoice.total, closing_reason: null, closed_date: null });
  }
}

/**
 * PENDING may settle or fail; PAID and PARTIAL may swap; any may become VOIDED (refunded or reversed
 * in the source system); nothing else moves by import.
 */
function statusMayChange(from: PaymentStatus, to: PaymentStatus): boolean {
  if (from === to || from === 'PENDING' || to === 'VOIDED') return true;
  return (from === 'PAID' || from === 'PARTIAL') && (to === 'PAID' || to === 'PARTIAL');
}

export function emptyCounts(): Counts {
  return { created: 0, updated: 0, unchanged: 0 };
}

function hasLocation(f: CustomerFields): boolean {
  return [f.location_name, f.address_line1, f.city, f.region, f.postal_code, f.country].some((v) => v !== undefined);
}

function hasContact(f: CustomerFields): boolean {
  return f.contact_name !== undefined || f.contact_email !== undefined;
}

export async function planImport(db: Kysely<Database>, input: PlanInput, now: string): Promise<Plan> {
  return new Planner(db, input, now).run();
}
