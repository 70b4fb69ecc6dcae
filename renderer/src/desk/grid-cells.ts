import type { ICellRendererComp, ICellRendererParams } from 'ag-grid-community';
import type { Schemas } from '../api/client';
import { companyPath } from '../state/route';
import { bucketLabel, LABEL_GREY, statusLabel, statusTone } from './cells';
import { followUpState, formatDate, formatMoney, localToday } from './format';
import type { Invoice } from './types';

/**
 * The invoice grid's cells as plain DOM. AG Grid mounts a React cell renderer as a portal with
 * its own render per cell; a status filter repaints some 35 rows of them at once, and that was
 * most of the repaint's time. A class with `getGui` is a plain renderer to AG Grid's React
 * wrapper: its element is built once and appended. The markup is that of the React cells in
 * cells.tsx (the same classes and data attributes), which the detail panel still uses.
 */
type Build<P> = (invoice: Invoice, params: ICellRendererParams<Invoice> & P) => HTMLElement | null;

function domRenderer<P = object>(build: Build<P>): new () => ICellRendererComp<Invoice> {
  return class DomCell implements ICellRendererComp<Invoice> {
    private gui: HTMLElement = document.createElement('span');
    init(params: ICellRendererParams<Invoice> & P) {
      const built = params.data ? build(params.data, params) : null;
      if (built) this.gui = built;
    }
    getGui() {
      return this.gui;
    }
    /** A changed row gets a new cell (false: AG Grid builds it again). */
    refresh() {
      return false;
    }
  };
}

function element(tag: string, className: string, ...children: Array<Node | string>): HTMLElement {
  const el = document.createElement(tag);
  el.className = className;
  el.append(...children);
  return el;
}

function srOnly(text: string): HTMLElement {
  return element('span', 'sr-only', text);
}

export const StatusCell = domRenderer((invoice) => {
  const badge = element('span', `badge badge-${statusTone(invoice.status)}`, invoice.status_display ?? statusLabel(invoice.status));
  badge.dataset.status = invoice.status;
  return badge;
});

export const BucketCell = domRenderer((invoice) => (invoice.aging_bucket ? element('span', `bucket bucket-${invoice.aging_bucket}`, bucketLabel(invoice.aging_bucket)) : null));

/** The open balance (a closed invoice owes nothing), with a marker when payments are pending. */
export const BalanceCell = domRenderer((invoice) => {
  const cell = element('span', 'balance-cell');
  if (invoice.pending_amount > 0) {
    const mark = element('span', 'pending-mark', '◔');
    mark.dataset.testid = 'pending-mark';
    mark.setAttribute('aria-label', `${formatMoney(invoice.pending_amount, invoice.currency)} pending`);
    cell.append(mark);
  }
  cell.append(formatMoney(invoice.open_balance, invoice.currency));
  return cell;
});

/** A follow-up date, marked when it is due today or overdue. */
export const FollowUpCell = domRenderer((invoice) => {
  if (!invoice.next_follow_up_date) return null;
  const state = invoice.status.startsWith('closed_') ? 'later' : followUpState(invoice.next_follow_up_date, localToday());
  const cell = element('span', `follow-up follow-up-${state}`, formatDate(invoice.next_follow_up_date));
  cell.dataset.state = state;
  if (state !== 'later') cell.append(srOnly(state === 'overdue' ? ' (overdue)' : ' (today)'));
  return cell;
});

/** Why an invoice is in My work: the most pressing reason, and how many more. */
export const AttentionCell = domRenderer((invoice) => {
  const notes: Array<Schemas['AttentionNote']> = invoice.attention ?? [];
  if (notes.length === 0) return null;
  const [first, ...rest] = notes;
  const cell = element('span', `why why-${first.reason}`, first.label);
  cell.dataset.reason = first.reason;
  if (rest.length > 0) cell.append(element('span', 'muted', ` +${rest.length}`));
  return cell;
});

/** The invoice's labels as chips in their own colours. */
export const LabelsCell = domRenderer((invoice) =>
  element(
    'span',
    'chips',
    ...invoice.labels.map((label) => {
      const chip = element('span', 'chip', element('span', 'chip-dot'), label.name);
      chip.style.setProperty('--chip', label.color ?? LABEL_GREY);
      chip.dataset.label = label.name;
      (chip.firstChild as HTMLElement).setAttribute('aria-hidden', 'true');
      return chip;
    }),
  ),
);

/**
 * The customer's name as a link to its page: a real address (copy link, screen readers say where
 * it goes); a click opens the page in place through `onOpen`.
 */
export const CustomerCell = domRenderer<{ companyId: string; onOpen: (customerId: string) => void }>((invoice, params) => {
  const link = element('a', 'cell-link', invoice.customer_name) as HTMLAnchorElement;
  link.href = companyPath(params.companyId, 'customers', invoice.customer);
  link.addEventListener('click', (e) => {
    e.preventDefault();
    params.onOpen(invoice.customer);
  });
  return link;
});
