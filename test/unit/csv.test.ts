/** The CSV serializer (shared/http/csv.ts): RFC 4180 quoting, CRLF, cells by type, formula prefixes. */
import { describe, expect, it } from 'vitest';
import { csvOf } from '../../shared/http/csv.ts';

describe('csvOf', () => {
  it('writes a header row and one row per object, CRLF after each, in the columns\' order', () => {
    expect(csvOf(['a', 'b'], [{ b: 2, a: 1 }, { a: 3 }])).toBe('a,b\r\n1,2\r\n3,\r\n');
    expect(csvOf(['a'], [])).toBe('a\r\n');
  });

  it('writes null and absent as empty, booleans and numbers as JSON does, arrays and objects as their JSON text', () => {
    expect(csvOf(['n', 'u', 't', 'f', 'x', 'o', 'l'], [{ n: null, t: true, f: false, x: 0.1, o: { k: 'v' }, l: [1, 'a'] }])).toBe('n,u,t,f,x,o,l\r\n,,true,false,0.1,"{""k"":""v""}","[1,""a""]"\r\n');
  });

  it('quotes a cell with a quote, a comma, a CR or an LF, doubling its quotes; leaves the others bare', () => {
    const cells = ['plain', 'a,b', 'say "hi"', 'one\r\ntwo', 'lf\nonly', 'cr\ronly', 'Érable Ωμέγα'];
    expect(csvOf(['c'], cells.map((c) => ({ c })))).toBe('c\r\nplain\r\n"a,b"\r\n"say ""hi"""\r\n"one\r\ntwo"\r\n"lf\nonly"\r\n"cr\ronly"\r\nÉrable Ωμέγα\r\n');
  });

  it('prefixes text a spreadsheet would read as a formula with \', never a number', () => {
    const cells = ['=1+1', '+1', '-1', '@x', '\tx', '\rx', 'a=1', ' =1'];
    expect(csvOf(['c'], cells.map((c) => ({ c })))).toBe('c\r\n\'=1+1\r\n\'+1\r\n\'-1\r\n\'@x\r\n\'\tx\r\n"\'\rx"\r\na=1\r\n =1\r\n');
    expect(csvOf(['n'], [{ n: -1 }])).toBe('n\r\n-1\r\n');
  });
});
