/**
 * The first column mapping of a bank export, guessed from its headers and checked against its
 * cells; the delimiter of a CSV export; which kept mapping fits a file.
 */
import { describe, expect, it } from 'vitest';
import { mappingFits } from '../../core/bank/mappings';
import { guessBankMapping } from '../../core/bank/read/guess-mapping';
import { BankMappingSchema, type StatementTable } from '../../core/bank/read/table';
import { sniffDelimiter } from '../../core/bank/table-file';

const table = (headers: string[], ...rows: string[][]): StatementTable => ({ headers, rows: rows.map((cells, i) => ({ row: i + 2, cells })) });

describe('guessing a bank export mapping', () => {
  it('reads US, UK and compact dates from the cells, month first when they allow both', () => {
    const us = guessBankMapping(table(['Posting Date', 'Amount', 'Memo'], ['11/23/2026', '-12.50', 'x'], ['11/03/2026', '100.00', 'INV-1']), 'USD');
    expect(us.mapping).toMatchObject({ date: 'Posting Date', amount: 'Amount', reference: ['Memo'], date_format: 'MM/DD/YYYY', decimal: '.' });
    expect(us.missing).toEqual(['account']);
    const uk = guessBankMapping(table(['Date', 'Money in', 'Money out', 'Name'], ['23/11/2026', '10.00', '', 'A'], ['03/11/2026', '', '4.00', 'B']), 'GBP');
    expect(uk.mapping).toMatchObject({ date: 'Date', credit: 'Money in', debit: 'Money out', payer: 'Name', date_format: 'DD/MM/YYYY', currency: 'GBP' });
    expect(uk.mapping.amount).toBeUndefined();
    expect(guessBankMapping(table(['Datum', 'Betrag'], ['20261103', '1,00']), 'EUR').mapping).toMatchObject({ date: 'Datum', date_format: 'YYYYMMDD', decimal: ',' });
    expect(guessBankMapping(table(['Date', 'Amount'], ['03/11/2026', '1.00']), 'USD').mapping.date_format).toBe('MM/DD/YYYY');
  });

  it('takes no column whose cells disagree with its name, and says what is left to choose', () => {
    const g = guessBankMapping(table(['Date', 'Amount', 'Text'], ['soon', 'many', 'x']), 'USD');
    expect(g.mapping.date).toBeUndefined();
    expect(g.mapping.amount).toBeUndefined();
    expect(g.missing).toEqual(['account', 'date', 'amount']);
  });

  it('tells the delimiter from the header line, quoted text aside', () => {
    expect(sniffDelimiter('a;b;c\n1;2;3')).toBe(';');
    expect(sniffDelimiter('"x;y",b,c\r\n1,2,3')).toBe(',');
    expect(sniffDelimiter('a\tb\n')).toBe('\t');
    expect(sniffDelimiter('single')).toBe(',');
  });

  it('a kept mapping fits a file that has every column it names, in any case', () => {
    const m = BankMappingSchema.parse({ account: 'A', currency: 'USD', date: 'Date', amount: 'Amount', reference: ['Memo'], date_format: 'YYYY-MM-DD' });
    expect(mappingFits(m, ['DATE', 'amount ', 'Memo', 'Balance'])).toBe(true);
    expect(mappingFits(m, ['Date', 'Amount'])).toBe(false);
  });
});
