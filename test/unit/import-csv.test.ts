import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../core/import/csv';
import { decodeText, detectFormat, readCsvTable } from '../../core/import/table';
import { ValidationError } from '../../core/errors';

const fields = (text: string, delimiter?: string) => parseCsv(text, delimiter).map((r) => r.fields);

describe('parseCsv (RFC 4180)', () => {
  it('splits plain records on LF, CRLF and CR line ends', () => {
    expect(fields('a,b\n1,2\r\n3,4\r5,6')).toEqual([
      ['a', 'b'],
      ['1', '2'],
      ['3', '4'],
      ['5', '6'],
    ]);
  });

  it('keeps delimiters, line breaks and doubled quotes inside quoted fields', () => {
    const text = 'name,notes\r\n"Acme, Inc.","line one\r\nline two"\r\n"say ""hi""",""\r\n';
    expect(fields(text)).toEqual([
      ['name', 'notes'],
      ['Acme, Inc.', 'line one\r\nline two'],
      ['say "hi"', ''],
    ]);
  });

  it('numbers records as a spreadsheet shows them, even when a field spans lines', () => {
    const records = parseCsv('h1,h2\n"multi\nline",x\ny,z\n');
    expect(records.map((r) => r.row)).toEqual([1, 2, 3]);
  });

  it('strips a byte-order mark and ignores the final line end', () => {
    expect(fields('\ufeffid,name\n1,A\n')).toEqual([
      ['id', 'name'],
      ['1', 'A'],
    ]);
  });

  it('skips blank lines but keeps counting them in row numbers', () => {
    const records = parseCsv('a,b\n\n1,2\n,\n3,4');
    expect(records.map((r) => [r.row, r.fields])).toEqual([
      [1, ['a', 'b']],
      [3, ['1', '2']],
      [5, ['3', '4']],
    ]);
  });

  it('keeps empty fields, leading zeros and surrounding spaces as written', () => {
    expect(fields('a,,c\n0007, x ,')).toEqual([
      ['a', '', 'c'],
      ['0007', ' x ', ''],
    ]);
  });

  it('reads other delimiters', () => {
    expect(fields('a;b\n"1;5";2,5', ';')).toEqual([
      ['a', 'b'],
      ['1;5', '2,5'],
    ]);
    expect(fields('a\tb\n1\t2', '\t')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
  });

  it('treats a quote inside an unquoted field as text', () => {
    expect(fields('a\n5" pipe')).toEqual([['a'], ['5" pipe']]);
  });

  it('rejects an unterminated quote and text after a closing quote, naming the row', () => {
    expect(() => parseCsv('a,b\n1,"open\n2,3')).toThrow(/row 2 that is never closed/);
    expect(() => parseCsv('a\n"x"y')).toThrow(ValidationError);
    expect(() => parseCsv('a\n"x"y')).toThrow(/after a closing quote on row 2/);
  });

  it('parses an empty text to no records', () => {
    expect(parseCsv('')).toEqual([]);
    expect(parseCsv('\ufeff')).toEqual([]);
  });
});

describe('reading a CSV file as a table', () => {
  it('trims header names and keeps data cells as text', () => {
    const table = readCsvTable(' id , name \n1,A\n', ',');
    expect(table.headers).toEqual(['id', 'name']);
    expect(table.rows).toEqual([{ row: 2, cells: ['1', 'A'] }]);
  });

  it('refuses a file without a header row', () => {
    expect(() => readCsvTable('\n\n', ',')).toThrow(/empty/);
  });

  it('decodes UTF-8 strictly and Windows-1252 on request', () => {
    const latin = new Uint8Array([0x43, 0x61, 0x66, 0xe9]); // "Café" in Windows-1252
    expect(() => decodeText(latin, 'utf-8')).toThrow(/not utf-8 text/);
    expect(decodeText(latin, 'windows-1252')).toBe('Café');
  });

  it('detects an XLSX file by its ZIP signature', () => {
    expect(detectFormat(new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0]))).toBe('xlsx');
    expect(detectFormat(new TextEncoder().encode('a,b'))).toBe('csv');
  });
});
