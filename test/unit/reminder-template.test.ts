import { describe, expect, it } from 'vitest';
import { longDate } from '../../core/dates';
import { formatMoney } from '../../core/money';
import { dueState, type ReminderData, renderReminder } from '../../core/reminders/template';
import { escapeHtml } from '../../core/text';

const base: ReminderData = {
  companyName: 'Acme Supply',
  customerName: 'Borealis Foods',
  contactName: 'Pat Payables',
  invoiceNumber: 'INV-1042',
  invoiceDate: '2026-10-01',
  dueDate: '2026-10-31',
  currency: 'USD',
  totalAmount: 125_000,
  paidAmount: 25_000,
  balance: 100_000,
  daysPastDue: 23,
  paymentLink: 'https://pay.acme.example/i/INV-1042',
};

describe('formatMoney', () => {
  it('formats minor units with the currency', () => {
    expect(formatMoney(123_450, 'USD')).toBe('$1,234.50');
    expect(formatMoney(9_900, 'EUR')).toBe('€99.00');
    expect(formatMoney(-500, 'USD')).toBe('-$5.00');
    expect(formatMoney(0, 'USD')).toBe('$0.00');
  });

  it('falls back to the code for a currency it does not know', () => {
    expect(formatMoney(123_450, 'NOT-A-CODE')).toBe('1,234.50 NOT-A-CODE');
  });
});

describe('longDate', () => {
  it('writes the month in words, the day without a leading zero, and the year', () => {
    expect(longDate('2026-12-01')).toBe('December 1, 2026');
    expect(longDate('2027-01-31')).toBe('January 31, 2027');
    expect(longDate('2028-02-29')).toBe('February 29, 2028');
  });
});

describe('dueState', () => {
  it('reads past due, due today and due later', () => {
    expect(dueState(23, '2026-10-31')).toBe('is 23 days past due');
    expect(dueState(1, '2026-11-22')).toBe('is 1 day past due');
    expect(dueState(0, '2026-11-23')).toBe('is due today');
    expect(dueState(-8, '2026-12-01')).toBe('is due on December 1, 2026');
  });
});

describe('renderReminder', () => {
  it('carries the invoice data in subject, text and HTML', () => {
    const email = renderReminder(base);
    expect(email.subject).toBe('Payment reminder: invoice INV-1042 is 23 days past due ($1,000.00)');
    expect(email.text).toContain('Hello Pat Payables,');
    expect(email.text).toContain('This is a reminder that invoice INV-1042 from Acme Supply is 23 days past due, with $1,000.00 outstanding.');
    for (const line of ['Invoice: INV-1042', 'Invoice date: October 1, 2026', 'Due date: October 31, 2026', 'Amount: $1,250.00', 'Paid: $250.00', 'Balance due: $1,000.00', 'Days past due: 23', 'Pay online: https://pay.acme.example/i/INV-1042']) {
      expect(email.text).toContain(line);
    }
    expect(email.text.trimEnd().endsWith('Kind regards,\nAcme Supply')).toBe(true);
    expect(email.html).toContain('<a href="https://pay.acme.example/i/INV-1042">Pay invoice INV-1042 online</a>');
    expect(email.html).toContain('<strong>$1,000.00</strong>');
  });

  it('leaves out what does not apply: no payment, not past due, no link, no contact name', () => {
    const email = renderReminder({ ...base, paidAmount: 0, balance: 125_000, daysPastDue: -8, dueDate: '2026-12-01', paymentLink: null, contactName: null });
    expect(email.subject).toBe('Payment reminder: invoice INV-1042 is due on December 1, 2026 ($1,250.00)');
    expect(email.text).toContain('Hello Borealis Foods,');
    expect(email.text).not.toContain('Paid:');
    expect(email.text).not.toContain('Days past due');
    expect(email.text).not.toContain('Pay online');
    expect(email.html).not.toContain('<a ');
  });

  it('escapes every value in the HTML and never links a non-web scheme', () => {
    const email = renderReminder({ ...base, companyName: 'Smith & <Sons>', invoiceNumber: '"INV"<1>', paymentLink: 'javascript:alert(1)' });
    expect(email.html).toContain('Smith &amp; &lt;Sons&gt;');
    expect(email.html).toContain('&quot;INV&quot;&lt;1&gt;');
    expect(email.html).not.toContain('<Sons>');
    expect(email.html).not.toContain('href="javascript');
    expect(email.html).toContain('Pay online: javascript:alert(1)');
    expect(escapeHtml(`<a href='x'>&</a>`)).toBe('&lt;a href=&#39;x&#39;&gt;&amp;&lt;/a&gt;');
  });
});
