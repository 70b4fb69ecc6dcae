import { describe, expect, it } from 'vitest';
import { formatMoney } from '../../core/money';
import { daysPastDue, emptyPlaceholderReason, emptyPlaceholders, PLACEHOLDERS, renderTemplate, type TemplateContext, templateValues, unknownPlaceholders } from '../../core/sequences/templates';

const inv = (invoice_number: string, due_date: string, balance: number, payment_link: string | null = null) => ({
  invoice_number,
  invoice_date: '2026-09-01',
  due_date,
  currency: 'USD',
  total_amount: balance,
  balance,
  payment_link,
});

const ctx: TemplateContext = {
  customerName: 'Globex & Sons',
  contactName: 'Pat Payables',
  companyName: 'Acme Supply',
  senderName: 'Alice Collector',
  openInvoices: [inv('INV-1', '2026-10-01', 125_000, 'https://pay.test/INV-1'), inv('INV-2', '2026-11-20', 5_050), inv('INV-3', '2026-12-15', 1_000)],
  invoice: inv('INV-1', '2026-10-01', 125_000, 'https://pay.test/INV-1'),
  currency: 'USD',
  today: '2026-11-23',
};

describe('templates', () => {
  it('fills every placeholder from the customer and invoice', () => {
    const v = templateValues(ctx);
    expect(v).toMatchObject({
      customer_name: 'Globex & Sons',
      contact_name: 'Pat Payables',
      company_name: 'Acme Supply',
      sender_name: 'Alice Collector',
      invoice_number: 'INV-1',
      invoice_date: 'September 1, 2026',
      due_date: 'October 1, 2026',
      balance: '$1,250.00',
      days_past_due: '53',
      payment_link: 'https://pay.test/INV-1',
      total_balance: '$1,310.50',
      total_overdue: '$1,300.50',
      open_invoice_count: '3',
      overdue_invoice_count: '2',
    });
    expect(v.invoice_list.split('\n')).toEqual(['INV-1, due October 1, 2026: $1,250.00', 'INV-2, due November 20, 2026: $50.50', 'INV-3, due December 15, 2026: $10.00']);
    expect(Object.keys(v).sort()).toEqual([...PLACEHOLDERS].sort());
  });

  it('renders placeholders with or without inner spaces and leaves unknown ones as written', () => {
    const out = renderTemplate('Hi {{contact_name}}, {{ invoice_number }} is {{days_past_due}} days late. {{nickname}} {{ unknown_thing }}', templateValues(ctx));
    expect(out).toBe('Hi Pat Payables, INV-1 is 53 days late. {{nickname}} {{ unknown_thing }}');
    expect(unknownPlaceholders('{{nickname}} {{customer_name}} {{ nickname }} {{x}}')).toEqual(['nickname', 'x']);
  });

  it('escapes values in HTML and keeps line breaks', () => {
    const values = templateValues(ctx);
    expect(renderTemplate('<p>{{customer_name}}</p>', values, 'html')).toBe('<p>Globex &amp; Sons</p>');
    expect(renderTemplate('<p>{{customer_name}}</p>', values, 'text')).toBe('<p>Globex & Sons</p>');
    expect(renderTemplate('{{invoice_list}}', values, 'html')).toContain('$1,250.00<br>INV-2');
  });

  it('renders invoice placeholders empty when the customer has no open invoice', () => {
    const v = templateValues({ ...ctx, openInvoices: [], invoice: null, contactName: null, senderName: null });
    expect(v).toMatchObject({ invoice_number: '', balance: '', days_past_due: '', payment_link: '', total_balance: '$0.00', open_invoice_count: '0', invoice_list: '' });
    expect(v.contact_name).toBe('Globex & Sons');
    expect(v.sender_name).toBe('Acme Supply');
  });

  it('counts days past due from the due date, never below zero', () => {
    expect(daysPastDue('2026-11-20', '2026-11-23')).toBe(3);
    expect(daysPastDue('2026-11-23', '2026-11-23')).toBe(0);
    expect(daysPastDue('2026-12-01', '2026-11-23')).toBe(0);
  });

  it('formats money in the currency', () => {
    expect(formatMoney(123_456, 'USD')).toBe('$1,234.56');
    expect(formatMoney(-500, 'EUR')).toBe('-€5.00');
  });

  it('keeps a section only when its placeholder has a value, and names an empty placeholder outside any section', () => {
    const body = 'Due {{due_date}}.{{#payment_link}} You can pay online at {{payment_link}}.{{/payment_link}} Thanks.';
    const withLink = templateValues(ctx);
    const without = templateValues({ ...ctx, invoice: inv('INV-2', '2026-11-20', 5_050) });
    expect(renderTemplate(body, withLink)).toBe('Due October 1, 2026. You can pay online at https://pay.test/INV-1. Thanks.');
    expect(renderTemplate(body, without)).toBe('Due November 20, 2026. Thanks.');
    expect(emptyPlaceholders(body, without)).toEqual([]);
    const bare = 'You can pay online at {{payment_link}}.';
    expect(renderTemplate(bare, without)).toBe('You can pay online at .');
    expect(emptyPlaceholders(bare, without)).toEqual(['payment_link']);
    expect(emptyPlaceholders(bare, withLink)).toEqual([]);
    expect(emptyPlaceholderReason(['payment_link'])).toBe(
      'The email would read with nothing in place of {{payment_link}} (the invoice has no payment link). Put that sentence in {{#payment_link}}…{{/payment_link}} so it is left out when there is no value, or fill in the value.',
    );
    expect(emptyPlaceholderReason([])).toBeNull();
    // HTML sections escape their values like the rest; an unknown section stays and is named.
    expect(renderTemplate('{{#payment_link}}<a href="{{payment_link}}">Pay</a>{{/payment_link}}', withLink, 'html')).toBe('<a href="https://pay.test/INV-1">Pay</a>');
    expect(unknownPlaceholders('{{#paymnt_link}}x{{/paymnt_link}}')).toEqual(['#paymnt_link']);
  });
});
