import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../../../test/harness.ts';
import { arrayLiteral, recordset, sqlRunner } from './raw-sql.ts';

const database = useTestDatabase();

interface Row {
  name: string | null;
  amount: number | null;
  share: number;
  active: boolean;
  at: string;
  day: string;
}

describe('recordset', () => {
  it('brings every row back from PostgreSQL exactly as it went in, whatever the text holds', async () => {
    const rows: Row[] = [
      { name: 'plain', amount: 12_345, share: 0.25, active: true, at: '2026-03-01T10:00:00.000Z', day: '2026-03-01' },
      { name: 'say "hi", {twice}', amount: -1, share: 1e-7, active: false, at: '2026-03-01T23:59:59.999Z', day: '2026-03-02' },
      { name: 'back\\slash \\" and \\\\', amount: 9_007_199_254_740_991, share: 0, active: true, at: '2026-03-02T00:00:00.000Z', day: '2026-03-03' },
      { name: 'NULL', amount: null, share: 3, active: false, at: '2026-03-02T00:00:00.000Z', day: '2026-03-04' },
      { name: '', amount: 0, share: 3, active: true, at: '2026-03-02T00:00:00.000Z', day: '2026-03-05' },
      { name: null, amount: 7, share: 3, active: true, at: '2026-03-02T00:00:00.000Z', day: '2026-03-06' },
      { name: '  spaces, tabs\tand\nnew lines; ünïcödé 🛒 ', amount: 7, share: 3, active: true, at: '2026-03-02T00:00:00.000Z', day: '2026-03-07' },
    ];
    const records = recordset<Row>(
      [['name', 'text'], ['amount', 'bigint'], ['share', 'float8'], ['active', 'boolean'], ['at', 'timestamptz'], ['day', 'date']],
      2,
    );
    const back = await sqlRunner(database.orm.em.fork()).rows<Row>(
      `select x.name, x.amount::text as amount, x.share, x.active,
              to_char(x.at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at, to_char(x.day, 'YYYY-MM-DD') as day
         from ${records.from}
        where $1::int = 1
        order by x.day`,
      [1, ...records.parameters(rows)],
    );
    expect(back.map((row) => ({ ...row, amount: row.amount === null ? null : Number(row.amount) }))).toEqual(rows);
  });

  it('an empty batch is empty arrays', () => {
    expect(arrayLiteral([])).toBe('{}');
    expect(arrayLiteral(['a', null, 2, false])).toBe('{"a",NULL,2,f}');
  });
});
