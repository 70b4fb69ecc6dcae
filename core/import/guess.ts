/**
 * A first mapping guessed the way a person reads a file: by each column's name and by what its
 * cells hold (ids, names, amounts, dates, yes/no words). Pure, and free of imports beyond the field
 * list, so the renderer's import wizard runs the same guess on the preview's column profiles.
 */
import { type DateFormat, FIELDS, type Section } from './fields';
import type { Mapping } from './mapping';
import { DOCUMENT_TYPE_WORDS, INVOICE_STATUS_WORDS, STATUS_WORDS } from './statuses';

export type GuessEntity = 'customers' | 'invoices' | 'payments' | 'ar-rows';

/** What a column's filled cells look like: each flag holds for every one of them (a date may be impossible, like 2/30). */
export interface ColumnProfile {
  header: string;
  /** Filled cells looked at. */
  filled: number;
  /** Every filled cell is a date; date_formats says in which formats all of them read. */
  date: boolean;
  date_formats: DateFormat[];
  /** Every filled cell is a number with at most two decimals; decimals: some have a fraction. */
  amount: boolean;
  decimals: boolean;
  /** The separator the fractions use, when some have one. */
  decimal: '.' | ',' | null;
  /** Every filled cell is one word of letters and digits with at least one digit (0379-NEVHP, INV-7). */
  id: boolean;
  /** Every filled cell has letters, and no cell is an id or a number. */
  text: boolean;
  /** Every filled cell is a yes/no word. */
  yes_no: boolean;
  email: boolean;
  /** No value repeats. */
  unique: boolean;
  /** The distinct values when there are at most MAX_VALUES of them: what a value map maps. */
  values: string[] | null;
}

export const MAX_VALUES = 12;
/** Rows profiled: enough to see a day above 12 and every value of a short list. */
export const PROFILE_ROWS = 5_000;

const ISO = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/;
const SLASHED = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/;
const NUMBER = /^-?[$€£]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?$/;
const COMMA_NUMBER = /^-?[$€£]?(?:\d{1,3}(?:\.\d{3})+|\d+)(?:,(\d{1,2}))?$/;
const ID = /^(?=.*\d)[A-Za-z0-9][A-Za-z0-9\-_/.#]*$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const YES_WORDS = ['yes', 'y', 'true'];
export const NO_WORDS = ['no', 'n', 'false'];

function validDay(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The formats a date text reads in; ISO reads in every format (it is never ambiguous). */
export function dateFormatsOf(text: string): DateFormat[] {
  const iso = ISO.exec(text);
  if (iso) return validDay(+iso[1], +iso[2], +iso[3]) ? ['YYYY-MM-DD', 'M/D/YYYY', 'D/M/YYYY'] : [];
  const m = SLASHED.exec(text);
  if (!m) return [];
  const out: DateFormat[] = [];
  if (validDay(+m[3], +m[1], +m[2])) out.push('M/D/YYYY');
  if (validDay(+m[3], +m[2], +m[1])) out.push('D/M/YYYY');
  return out;
}

/** Profiles each column over the rows given (cells as text). */
export function profileColumns(headers: string[], rows: string[][]): ColumnProfile[] {
  const sample = rows.length > PROFILE_ROWS ? rows.slice(0, PROFILE_ROWS) : rows;
  return headers.map((header, i) => {
    const seen = new Set<string>();
    let filled = 0;
    let date = true;
    let formats = new Set<DateFormat>(['YYYY-MM-DD', 'M/D/YYYY', 'D/M/YYYY']);
    let slashed = false;
    let point = true;
    let pointFraction = false;
    let comma = true;
    let commaFraction = false;
    let id = true;
    let text = true;
    let yesNo = true;
    let email = true;
    for (const row of sample) {
      const cell = (row[i] ?? '').trim();
      if (cell === '') continue;
      filled++;
      seen.add(cell);
      // A date column with one impossible date (2/30) is still a date column: the dry run names that row.
      const iso = ISO.test(cell);
      if (!iso && !SLASHED.test(cell)) date = false;
      else {
        if (!iso) slashed = true;
        const fits = dateFormatsOf(cell);
        if (fits.length) formats = new Set(fits.filter((f) => formats.has(f)));
      }
      const number = NUMBER.exec(cell);
      if (!number) point = false;
      else if (number[1] !== undefined) pointFraction = true;
      const commaNumber = COMMA_NUMBER.exec(cell);
      if (!commaNumber) comma = false;
      else if (commaNumber[1] !== undefined) commaFraction = true;
      // Digits with leading zeros (0000611365) are an id, not a number.
      if (!ID.test(cell) || ((number || commaNumber) && !/^0\d/.test(cell))) id = false;
      if (!/[A-Za-z]/.test(cell) || ID.test(cell)) text = false;
      const lower = cell.toLowerCase();
      if (!YES_WORDS.includes(lower) && !NO_WORDS.includes(lower)) yesNo = false;
      if (!EMAIL.test(cell)) email = false;
    }
    const any = filled > 0;
    const decimal = point && pointFraction ? '.' : comma && commaFraction ? ',' : null;
    const isDate = any && date;
    // All-ISO columns read the same in every format: say only ISO, so no ambiguity is shown.
    const dateFormats = !isDate ? [] : slashed ? [...formats].filter((f) => f !== 'YYYY-MM-DD') : ['YYYY-MM-DD' as const];
    return {
      header,
      filled,
      date: isDate,
      date_formats: dateFormats,
      amount: any && (point || comma) && !isDate,
      decimals: decimal !== null,
      decimal,
      id: any && id && !isDate,
      text: any && text && !yesNo && !email,
      yes_no: any && yesNo,
      email: any && email,
      unique: any && seen.size === filled,
      values: any && seen.size <= MAX_VALUES ? [...seen] : null,
    };
  });
}

/** The date format the date columns agree on; ambiguous when more than one reads every date. */
export function guessDateFormat(profiles: ColumnProfile[]): { format: DateFormat; fits: DateFormat[]; ambiguous: boolean } {
  const dated = profiles.filter((p) => p.date);
  if (dated.length === 0) return { format: 'YYYY-MM-DD', fits: [], ambiguous: false };
  const slashed = dated.filter((p) => !(p.date_formats.length === 1 && p.date_formats[0] === 'YYYY-MM-DD'));
  if (slashed.length === 0) return { format: 'YYYY-MM-DD', fits: ['YYYY-MM-DD'], ambiguous: false };
  const fits = (['M/D/YYYY', 'D/M/YYYY'] as const).filter((f) => slashed.every((p) => p.date_formats.includes(f)));
  // Month first is the more common where the file gives no hint; the wizard shows the doubt.
  return { format: fits[0] ?? 'M/D/YYYY', fits, ambiguous: fits.length > 1 };
}

type Fit = (p: ColumnProfile) => boolean;
const isDate: Fit = (p) => p.date;
const isAmount: Fit = (p) => p.amount;
const isId: Fit = (p) => p.id || p.amount || p.text;
const isText: Fit = (p) => !p.date && !p.yes_no;
const anyFilled: Fit = (p) => p.filled > 0;
const oneOf =
  (...words: string[]): Fit =>
  (p) =>
    p.values !== null && p.values.length > 0 && p.values.every((v) => words.includes(v.toLowerCase()));
const BILL_CHANNELS = ['paper', 'electronic'];

interface FieldRule {
  /** Header names (lower case, letters and digits only) that mean this field. */
  names: string[];
  /** The content the field needs; a name match whose content does not fit is no match. */
  fits: Fit;
  /** Content alone is enough: the first free column that fits is taken when no name matched. */
  byContent?: Fit;
}

const RULES: { [S in Section]: Partial<Record<keyof (typeof FIELDS)[S], FieldRule>> } = {
  customers: {
    remote_id: { names: ['customerid', 'custid', 'customerno', 'customernumber', 'customercode', 'clientid', 'clientno', 'clientnumber', 'accountid', 'accountnumber', 'accountno', 'debtorid'], fits: isId },
    name: { names: ['customername', 'customer', 'client', 'clientname', 'company', 'companyname', 'accountname', 'debtor', 'name', 'billto'], fits: isText },
    is_person: { names: ['isperson', 'person', 'individual'], fits: (p) => p.yes_no },
    currency: { names: ['customercurrency'], fits: anyFilled },
    payment_terms_days: { names: ['paymentterms', 'terms', 'termsdays', 'netdays', 'paymenttermsdays'], fits: (p) => p.amount && !p.decimals },
    notes: { names: ['customernotes'], fits: anyFilled },
    location_name: { names: ['location', 'site', 'branch', 'locationname'], fits: isText },
    address_line1: { names: ['address', 'street', 'address1', 'addressline1', 'streetaddress'], fits: anyFilled },
    city: { names: ['city', 'town'], fits: isText },
    region: { names: ['region', 'state', 'province', 'county'], fits: isText },
    postal_code: { names: ['postalcode', 'postcode', 'zip', 'zipcode'], fits: anyFilled },
    country: { names: ['country', 'countrycode', 'nation'], fits: anyFilled },
    contact_name: { names: ['contact', 'contactname', 'attention', 'attn'], fits: isText },
    contact_email: { names: ['email', 'contactemail', 'emailaddress', 'mail'], fits: (p) => p.email, byContent: (p) => p.email },
    contact_phone: { names: ['phone', 'telephone', 'contactphone', 'tel', 'phonenumber'], fits: anyFilled },
  },
  invoices: {
    invoice_number: { names: ['invoicenumber', 'invoiceno', 'invoicenum', 'invoice', 'invno', 'invnumber', 'documentnumber', 'docnumber', 'docno', 'number', 'billnumber', 'num', 'ref', 'reference'], fits: isId },
    remote_id: { names: ['invoiceid'], fits: isId },
    customer_remote_id: { names: ['customerid', 'custid', 'customerno', 'customernumber', 'customercode', 'clientid', 'accountnumber', 'accountid'], fits: isId },
    customer_name: { names: ['customername', 'customer', 'client', 'clientname', 'company', 'accountname', 'billto'], fits: isText },
    invoice_date: { names: ['invoicedate', 'date', 'issuedate', 'issued', 'documentdate', 'docdate', 'billdate', 'invdate', 'dateissued'], fits: isDate },
    due_date: { names: ['duedate', 'due', 'dueon', 'paymentdue', 'netduedate', 'datedue'], fits: isDate },
    total_amount: { names: ['totalamount', 'invoiceamount', 'amount', 'total', 'invoicetotal', 'amountdue', 'originalamount', 'grossamount', 'invamount', 'value'], fits: isAmount },
    currency: { names: ['currency', 'currencycode', 'curr', 'ccy'], fits: (p) => p.values !== null && p.values.every((v) => /^[A-Za-z]{3}$/.test(v)) },
    payment_link: { names: ['paymentlink', 'paylink', 'payurl', 'link'], fits: anyFilled },
    bill_channel: { names: ['billchannel', 'paperlessbill', 'billtype', 'delivery', 'deliverymethod', 'sentby'], fits: oneOf(...BILL_CHANNELS), byContent: oneOf(...BILL_CHANNELS) },
    // Open/paid words: the invoice's own status. A column of payment statuses only (PAID, PARTIAL) stays the payment's.
    status: { names: ['invoicestatus', 'status', 'stat', 'state'], fits: (p) => oneOf(...Object.keys(INVOICE_STATUS_WORDS))(p) && !oneOf(...Object.keys(STATUS_WORDS))(p) },
    document_type: { names: ['documenttype', 'doctype', 'transactiontype', 'type'], fits: oneOf(...Object.keys(DOCUMENT_TYPE_WORDS)) },
    open_amount: { names: ['openbalance', 'amountremaining', 'balancedue', 'amountoutstanding', 'outstanding', 'openamount', 'remaining', 'balance'], fits: isAmount },
  },
  payments: {
    remote_id: { names: ['paymentid', 'receiptid', 'receiptnumber'], fits: isId },
    invoice_number: { names: ['invoicenumber', 'invoiceno', 'invoice', 'invno'], fits: isId },
    invoice_remote_id: { names: ['invoiceid'], fits: isId },
    amount: { names: ['paymentamount', 'amountpaid', 'paidamount', 'paid', 'amount', 'receiptamount'], fits: isAmount },
    payment_date: { names: ['paymentdate', 'paiddate', 'datepaid', 'paidon', 'settleddate', 'settled', 'settlementdate', 'receiptdate', 'datereceived'], fits: isDate },
    payment_method: { names: ['paymentmethod', 'method', 'paidby', 'tender'], fits: anyFilled },
    payment_type: { names: ['paymenttype'], fits: anyFilled },
    status: { names: ['status', 'paymentstatus'], fits: oneOf(...Object.keys(STATUS_WORDS)) },
    transaction_id: { names: ['transactionid', 'transaction', 'txn', 'txnid', 'checknumber', 'chequenumber'], fits: anyFilled },
    notes: { names: ['paymentnotes', 'notes', 'memo', 'comments'], fits: anyFilled },
  },
};

/** Fields by content alone when no column is named for them: the columns a person would pick. */
const BY_CONTENT: Array<{ key: string; fits: Fit }> = [
  { key: 'invoices.invoice_number', fits: (p) => p.unique && (p.id || (p.amount && !p.decimals)) },
  { key: 'invoices.total_amount', fits: (p) => p.amount && p.decimals },
  { key: 'invoices.invoice_date', fits: isDate },
  { key: 'payments.amount', fits: (p) => p.amount && p.decimals },
  { key: 'payments.payment_date', fits: isDate },
  { key: 'customers.name', fits: (p) => p.text },
  { key: 'invoices.customer_name', fits: (p) => p.text },
];

/** Fields that identify another section's row: in a combined row the row itself says which. */
export const COMBINED_REFUSED: Partial<Record<Section, string[]>> = {
  invoices: ['customer_remote_id', 'customer_name'],
  payments: ['invoice_number', 'invoice_remote_id'],
};

export function sectionsOf(entity: GuessEntity): Section[] {
  return entity === 'ar-rows' ? ['customers', 'invoices', 'payments'] : [entity];
}

/** The fields of an entity, as "section.field", in the order a form lists them. */
export function fieldKeys(entity: GuessEntity): string[] {
  return sectionsOf(entity).flatMap((section) =>
    Object.keys(FIELDS[section])
      .filter((f) => !(entity === 'ar-rows' && COMBINED_REFUSED[section]?.includes(f)))
      .map((f) => `${section}.${f}`),
  );
}

const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * Which column fills which field ("section.field" -> header). A name that means the field wins
 * when the content fits; a field no column is named for takes the first free column whose
 * content only it could be. A column fills one field, except where a person would reuse it: a
 * customer ID with no name column is also the name, and in a combined row a settled date with no
 * paid amount means the invoice was paid in full.
 */
export function guessColumns(entity: GuessEntity, profiles: ColumnProfile[]): Record<string, string> {
  const keys = fieldKeys(entity);
  const candidates: Array<{ key: string; column: number; score: number }> = [];
  profiles.forEach((p, column) => {
    const name = norm(p.header);
    if (name === '' || p.filled === 0) return;
    for (const key of keys) {
      const [section, field] = key.split('.') as [Section, string];
      const rule = (RULES[section] as Record<string, FieldRule | undefined>)[field];
      if (!rule || !rule.fits(p)) continue;
      // In a combined row a bare "amount" or "notes" could be any section's: the lists decide.
      const own = [norm(`${section.replace(/s$/, '')}${field}`), ...(entity === 'ar-rows' ? [] : [norm(field)])];
      const score = own.includes(name) ? 4 : rule.names.includes(name) ? 3 - rule.names.indexOf(name) / 100 : 0;
      if (score > 0) candidates.push({ key, column, score });
    }
  });
  candidates.sort((a, b) => b.score - a.score || a.column - b.column);
  const guessed: Record<string, string> = {};
  const used = new Set<number>();
  const take = (key: string, column: number) => {
    guessed[key] = profiles[column].header;
    used.add(column);
  };
  for (const c of candidates) if (guessed[c.key] === undefined && !used.has(c.column)) take(c.key, c.column);

  const free = (fits: Fit) => profiles.findIndex((p, i) => !used.has(i) && p.filled > 0 && norm(p.header) !== '' && fits(p));
  for (const key of keys) {
    const [section, field] = key.split('.') as [Section, string];
    const rule = (RULES[section] as Record<string, FieldRule | undefined>)[field];
    if (guessed[key] !== undefined || !rule?.byContent) continue;
    const i = free(rule.byContent);
    if (i >= 0) take(key, i);
  }
  const identified = (section: string) => (section === 'customers' ? ['customers.remote_id', 'customers.name'] : ['invoices.customer_remote_id', 'invoices.customer_name']).some((k) => guessed[k]);
  for (const { key, fits } of BY_CONTENT) {
    if (!keys.includes(key) || guessed[key] !== undefined) continue;
    if (key.endsWith('customer_name') || key === 'customers.name') {
      if (identified(key.split('.')[0])) continue;
    }
    if (key.startsWith('payments.') && entity === 'ar-rows') continue;
    const i = free(fits);
    if (i >= 0) take(key, i);
  }

  if (keys.includes('customers.name') && !guessed['customers.name'] && guessed['customers.remote_id']) guessed['customers.name'] = guessed['customers.remote_id'];
  if (entity === 'ar-rows' && guessed['payments.payment_date'] && !guessed['payments.amount'] && guessed['invoices.total_amount']) {
    guessed['payments.amount'] = guessed['invoices.total_amount'];
  }
  return guessed;
}

/** "IsDisputed" -> "Disputed", "on_hold" -> "On hold": a label name from a yes/no column's header. */
export function labelFromHeader(header: string): string {
  const words = header
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_\-.]+/g, ' ')
    .trim()
    .split(/\s+/)
    .filter((w, i) => !(i === 0 && /^(is|has|flag)$/i.test(w)));
  const text = words.join(' ').toLowerCase();
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export interface LabelGuess {
  column: string;
  /** The cell value that gives the label. */
  value: string;
  label: string;
}

/** A yes/no column no field reads is a mark on the invoice: its yes value gives a label of its name. */
export function guessLabels(entity: GuessEntity, profiles: ColumnProfile[], columns: Record<string, string>): LabelGuess[] {
  if (entity !== 'invoices' && entity !== 'ar-rows') return [];
  const mapped = new Set(Object.values(columns));
  return profiles.flatMap((p) => {
    if (!p.yes_no || mapped.has(p.header) || !p.header.trim()) return [];
    const yes = p.values?.find((v) => YES_WORDS.includes(v.toLowerCase()));
    return yes ? [{ column: p.header, value: yes, label: labelFromHeader(p.header) }] : [];
  });
}

/** Fields that must have a column, as "section.field"; a group of several needs any one of them. */
export function requiredFields(entity: GuessEntity): string[][] {
  switch (entity) {
    case 'customers':
      return [['customers.remote_id', 'customers.name']];
    case 'invoices':
      return [['invoices.invoice_number'], ['invoices.invoice_date'], ['invoices.total_amount'], ['invoices.customer_remote_id', 'invoices.customer_name']];
    case 'payments':
      return [['payments.amount'], ['payments.payment_date'], ['payments.invoice_number', 'payments.invoice_remote_id']];
    case 'ar-rows':
      return [['customers.remote_id', 'customers.name'], ['invoices.invoice_number'], ['invoices.invoice_date'], ['invoices.total_amount']];
  }
}

/** Fields a combined row needs once it has a payment at all. */
export function requiredWith(entity: GuessEntity, columns: Record<string, string>): string[][] {
  const base = requiredFields(entity);
  if (entity === 'ar-rows' && Object.keys(columns).some((k) => k.startsWith('payments.'))) return [...base, ['payments.amount'], ['payments.payment_date']];
  return base;
}

/** What a column's values give, beyond a field: a label on the invoice, the invoice's status, the payment's status or method. */
export type ValueTarget = 'label' | 'invoice_status' | 'status' | 'payment_method';

export interface ValueMap {
  column: string;
  target: ValueTarget;
  /** Cell value -> the label's name, the status or the method; an empty choice gives nothing. */
  values: Record<string, string>;
}

/** The wizard's choices: a column per field, the formats, and the value maps. */
export interface MappingChoice {
  entity: GuessEntity;
  /** "section.field" -> the file's column; unmapped fields are absent. */
  columns: Record<string, string>;
  date: DateFormat;
  decimal: '.' | ',';
  valueMaps: ValueMap[];
}

/** Where each value target lands: the section that reads it, for the entities that have it. */
export function valueTargets(entity: GuessEntity): ValueTarget[] {
  return [...(entity === 'invoices' || entity === 'ar-rows' ? (['label', 'invoice_status'] as const) : []), ...(entity === 'payments' || entity === 'ar-rows' ? (['status', 'payment_method'] as const) : [])];
}

/** The mapping the import API takes; sections without a mapped field are left out. */
export function buildMapping(choice: MappingChoice): Mapping {
  const sections: Record<string, Record<string, unknown>> = {};
  for (const key of fieldKeys(choice.entity)) {
    const column = choice.columns[key];
    if (!column) continue;
    const [section, field] = key.split('.');
    (sections[section] ??= {})[field] = column;
  }
  const labels: Array<{ label: string; column: string; equals: string }> = [];
  for (const map of choice.valueMaps) {
    if (!valueTargets(choice.entity).includes(map.target)) continue;
    const given = Object.entries(map.values).filter(([, to]) => to.trim() !== '');
    if (given.length === 0) continue;
    const values = Object.fromEntries(given.map(([v, to]) => [v, to.trim()]));
    if (map.target === 'label') for (const [value, label] of given) labels.push({ label: label.trim(), column: map.column, equals: value });
    else if (map.target === 'invoice_status') (sections.invoices ??= {}).status = { column: map.column, values };
    else (sections.payments ??= {})[map.target] = { column: map.column, values };
  }
  if (labels.length) (sections.invoices ??= {}).labels = labels;
  return { entity: choice.entity, formats: { date: choice.date, decimal: choice.decimal }, ...sections } as Mapping;
}

/** A decimal comma when the amounts' fractions are written only that way (12,50 and no 12.50). */
export function guessDecimal(profiles: ColumnProfile[]): '.' | ',' {
  const amounts = profiles.filter((p) => p.amount && p.decimal !== null);
  return amounts.length > 0 && amounts.every((p) => p.decimal === ',') ? ',' : '.';
}

/** The whole first guess for a file: columns, date format, and a label for each yes/no column left over. */
export function guessChoice(entity: GuessEntity, profiles: ColumnProfile[]): MappingChoice {
  const columns = guessColumns(entity, profiles);
  return {
    entity,
    columns,
    date: guessDateFormat(profiles).format,
    decimal: guessDecimal(profiles),
    valueMaps: guessLabels(entity, profiles, columns).map((g) => ({ column: g.column, target: 'label' as const, values: { [g.value]: g.label } })),
  };
}
