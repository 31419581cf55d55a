import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../../../test/harness.ts';
import { arrayLiteral, pipelinedTransaction, preparedRows, recordset, sqlRunner } from './raw-sql.ts';

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

describe('preparedRows', () => {
  it('runs as a named prepared statement, with each call its own parameters', async () => {
    const em = database.orm.em.fork();
    const sql = `select name, $2::int * 2 as doubled from pg_prepared_statements where name = $1`;
    // Past the five custom plans after which PostgreSQL may switch to a generic one.
    for (let value = 1; value <= 8; value += 1) {
      expect(await preparedRows(em, 'raw-sql.test.probe', sql, ['raw-sql.test.probe', value])).toEqual([{ name: 'raw-sql.test.probe', doubled: value * 2 }]);
    }
    // The same text run unnamed is not a prepared statement of the session.
    expect(await sqlRunner(em).rows(sql, ['raw-sql.test.unnamed', 1])).toEqual([]);
  });

  it("inside a transaction runs on the transaction's connection and sees its uncommitted rows", async () => {
    const counted = await database.orm.em.fork().transactional(async (tx) => {
      const q = sqlRunner(tx);
      await q.run(`create temporary table prepared_rows_probe (id int) on commit drop`);
      await q.run(`insert into prepared_rows_probe values (1), (2), (3)`);
      return preparedRows<{ count: number }>(tx, 'raw-sql.test.in-transaction', `select count(*)::int as count from prepared_rows_probe where id >= $1`, [2]);
    });
    expect(counted).toEqual([{ count: 2 }]);
  });
});

describe('pipelinedTransaction', () => {
  /** Issues a short sleep and, right behind it, a statement that reports when it started; then keeps this process busy. */
  async function startOfStatementBehindBusyProcess(q: ReturnType<typeof sqlRunner>): Promise<{ started: number; busyUntil: number }> {
    const sleep = q.run(`select pg_sleep(0.05)`);
    const next = q.rows<{ started: string }>(`select (extract(epoch from statement_timestamp()) * 1000)::text as started`);
    const busyUntil = Date.now() + 400;
    while (Date.now() < busyUntil); // the JavaScript a bulk load does between its statements
    await sleep;
    return { started: Number((await next)[0]!.started), busyUntil };
  }

  it('sends each statement as soon as it is issued: the database goes on while this process is busy', async () => {
    const { started, busyUntil } = await pipelinedTransaction(database.orm.em.fork(), (tx) => startOfStatementBehindBusyProcess(sqlRunner(tx)));
    expect(started).toBeLessThan(busyUntil - 200);
    // On the ORM's transaction the second statement waits for this process.
    const serial = await database.orm.em.fork().transactional((tx) => startOfStatementBehindBusyProcess(sqlRunner(tx)));
    expect(serial.started).toBeGreaterThanOrEqual(serial.busyUntil - 5);
  });

  it('is one transaction: others see its rows only once it commits, and nothing of it when it fails', async () => {
    const outside = sqlRunner(database.orm.em.fork());
    await outside.run(`create table if not exists pipelined_probe (id int primary key)`);
    await outside.run(`truncate pipelined_probe`);
    const count = async () => (await outside.rows<{ count: number }>(`select count(*)::int as count from pipelined_probe`))[0]!.count;

    const seenInside = await pipelinedTransaction(database.orm.em.fork(), async (tx) => {
      const q = sqlRunner(tx);
      await Promise.all([q.run(`insert into pipelined_probe values (1)`), q.run(`insert into pipelined_probe values (2)`)]);
      expect(await count()).toBe(0);
      return (await q.rows<{ count: number }>(`select count(*)::int as count from pipelined_probe`))[0]!.count;
    });
    expect(seenInside).toBe(2);
    expect(await count()).toBe(2);

    await expect(
      pipelinedTransaction(database.orm.em.fork(), async (tx) => {
        const q = sqlRunner(tx);
        // The second insert fails on the key while the third is already on its way.
        await Promise.all([q.run(`insert into pipelined_probe values (3)`), q.run(`insert into pipelined_probe values (1)`), q.run(`insert into pipelined_probe values (4)`)]);
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(await count()).toBe(2);
    await outside.run(`drop table pipelined_probe`);
  });
});
