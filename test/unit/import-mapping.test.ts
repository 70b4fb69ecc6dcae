import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../core/errors';
import { compileMapping, type Mapping, validateMapping } from '../../core/import/mapping';
import { PRESETS } from '../../core/import/mappings/index';
import { resolveMapping } from '../../core/import/import';

function fieldErrors(fn: () => unknown): Record<string, string[]> {
  try {
    fn();
  } catch (err) {
    if (err instanceof ValidationError) return err.errors ?? {};
    throw err;
  }
  throw new Error('expected a ValidationError');
}

const headers = { headers: ['Cust ID', 'Name', 'Number', 'Date', 'Amount', 'Paid on', 'Disputed'] };
const invoiceMapping: Mapping = {
  invoices: { invoice_number: 'Number', invoice_date: 'Date', total_amount: 'Amount', customer_remote_id: 'Cust ID' },
};

describe('validateMapping', () => {
  it('accepts every field spec form and the formats', () => {
    const m = validateMapping({
      entity: 'ar-rows',
      formats: { date: 'D/M/YYYY', decimal: ',', true: ['ja'], false: ['nein'], delimiter: ';', encoding: 'windows-1252' },
      customers: { remote_id: 'Cust ID', name: { column: 'Name', default: 'Unknown' }, currency: { value: 'EUR' } },
      invoices: { invoice_number: { template: 'INV-{Number}' }, invoice_date: 'Date', total_amount: 'Amount', labels: [{ label: 'Disputed', column: 'Disputed' }] },
      payments: { amount: 'Amount', payment_date: 'Paid on', payment_method: { column: 'Name', values: { a: 'ACH' } } },
    });
    expect(m.entity).toBe('ar-rows');
  });

  it('names every problem with its path', () => {
    const errors = fieldErrors(() =>
      validateMapping({
        entity: 'orders',
        formats: { date: 'DD.MM.YY', decimal: '·' },
        invoices: { invoice_no: 'Number', total_amount: 12 },
        extra: true,
      }),
    );
    expect(Object.keys(errors).sort()).toEqual(['mapping', 'mapping.entity', 'mapping.formats.date', 'mapping.formats.decimal', 'mapping.invoices', 'mapping.invoices.total_amount']);
    expect(errors['mapping.invoices.total_amount'][0]).toMatch(/column name/);
  });

  it('resolves a preset by name or a mapping object, at most one of them (neither: the file is recognised)', () => {
    expect(resolveMapping({ preset: 'ibm-ar' })).toBe(PRESETS['ibm-ar']);
    expect(fieldErrors(() => resolveMapping({ preset: 'sap' })).preset[0]).toMatch(/ibm-ar/);
    expect(resolveMapping({})).toBeUndefined();
    expect(fieldErrors(() => resolveMapping({ preset: 'ibm-ar', mapping: {} })).mapping).toBeDefined();
  });
});

describe('compileMapping', () => {
  it('binds columns, matching a header in another case when that is unambiguous', () => {
    const compiled = compileMapping({ invoices: { ...invoiceMapping.invoices, invoice_number: 'number' } }, 'invoices', headers);
    expect(compiled.invoices!.invoice_number!.column).toBe('Number');
  });

  it('reports every missing column and required field at once', () => {
    const errors = fieldErrors(() => compileMapping({ invoices: { invoice_number: 'Invoice #', total_amount: 'Amount' } }, 'invoices', headers));
    expect(errors['mapping.invoices.invoice_number'][0]).toMatch(/no column "Invoice #"; its columns are: Cust ID, Name/);
    expect(errors['mapping.invoices.invoice_date']).toEqual(['Choose the column that holds the invoice date: it is required']);
    expect(errors['mapping.invoices']).toEqual(['Choose the column that holds the customer ID or the customer name, to know the customer']);
  });

  it('needs the sections of the entity and refuses per-row references in ar-rows', () => {
    expect(fieldErrors(() => compileMapping(invoiceMapping, 'customers', headers))['mapping.customers']).toEqual(['Choose the columns that hold the customer ID or the customer name']);
    expect(fieldErrors(() => compileMapping({ customers: { name: 'Name' } }, 'ar-rows', headers))['mapping.invoices']).toEqual([
      'Choose the columns that hold the invoice number, the invoice date and the total amount',
    ]);
    const errors = fieldErrors(() => compileMapping({ customers: { remote_id: 'Cust ID' }, ...invoiceMapping }, 'ar-rows', headers));
    expect(errors['mapping.invoices.customer_remote_id']).toEqual(['Customer ID is not read from a row that holds its own customer']);
  });

  it('refuses a column that appears twice and a template without columns', () => {
    const twice = { headers: ['id', 'id', 'name'] };
    expect(fieldErrors(() => compileMapping({ customers: { remote_id: 'id' } }, 'customers', twice))['mapping.customers.remote_id'][0]).toMatch(/more than once/);
    expect(fieldErrors(() => compileMapping({ customers: { remote_id: { template: 'fixed' } } }, 'customers', headers))['mapping.customers.remote_id'][0]).toMatch(
      /at least one \{column\}/,
    );
  });

  it('reads columns, translated values, defaults, templates and constants', () => {
    const compiled = compileMapping(
      {
        customers: {
          remote_id: { template: 'C-{Cust ID}' },
          name: { column: 'Name', default: 'Nameless' },
          notes: { value: 'imported' },
          currency: { column: 'Disputed', values: { Yes: 'EUR', No: 'USD' } },
        },
      },
      'customers',
      headers,
    );
    const c = compiled.customers!;
    const row = ['42', '', '', '', '', '', 'yes'];
    expect(c.remote_id!.read(row)).toEqual({ ok: true, value: 'C-42' });
    expect(c.remote_id!.read(['', 'x'])).toEqual({ ok: true, value: null });
    expect(c.name!.read(row)).toEqual({ ok: true, value: 'Nameless' });
    expect(c.notes!.read(row)).toEqual({ ok: true, value: 'imported' });
    expect(c.currency!.read(row)).toEqual({ ok: true, value: 'EUR' });
    expect(c.currency!.read(['', '', '', '', '', '', 'Maybe'])).toEqual({ ok: false, message: '"Maybe" is not one of Yes, No' });
  });

  it('compiles the ibm-ar preset against the IBM header', () => {
    const ibm = {
      headers: 'countryCode,customerID,PaperlessDate,invoiceNumber,InvoiceDate,DueDate,InvoiceAmount,Disputed,SettledDate,PaperlessBill,DaysToSettle,DaysLate'.split(','),
    };
    const compiled = compileMapping(PRESETS['ibm-ar'], 'ar-rows', ibm);
    expect(compiled.labels).toEqual([{ label: 'Disputed', column: 'Disputed', index: 7, meaning: 'dispute' }]);
    expect(compiled.payments!.remote_id!.read(['391', 'X', '', '0000611365'])).toEqual({ ok: true, value: 'settled-0000611365' });
  });
});
