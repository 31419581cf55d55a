import type { SqlRunner } from '../commerce/raw-sql.ts';

// Deleting a store deletes every row of it. Most tenant tables reference `stores` with ON DELETE
// CASCADE, but the append-only and derived ones do not (tracking events are partitioned by month, the
// sessions, touchpoints and attribution tables are written by jobs in bulk, without foreign keys):
// left behind, they would keep visitor ids, e-mail hashes and click ids of a store that no longer
// exists. So every table with a `store_id` column, found in the catalogue rather than listed here (a
// new table is covered the day it is added), is emptied of the store's rows, the tables that
// reference others first.

/** The tables (not their partitions) with a store_id column, each after every table that references it. */
async function storeTablesChildrenFirst(q: SqlRunner): Promise<string[]> {
  const tables = (
    await q.rows<{ name: string }>(
      `select c.relname as name from pg_class c
         join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema()
         join pg_attribute a on a.attrelid = c.oid and a.attname = 'store_id' and not a.attisdropped
        where c.relkind in ('r', 'p') and not c.relispartition and c.relname <> 'stores'
        order by c.relname`,
    )
  ).map((row) => row.name);
  const edges = await q.rows<{ child: string; parent: string }>(
    `select ch.relname as child, pa.relname as parent from pg_constraint f
       join pg_class ch on ch.oid = f.conrelid join pg_class pa on pa.oid = f.confrelid
      where f.contype = 'f' and ch.relname <> pa.relname`,
  );
  const ordered: string[] = [];
  const remaining = new Set(tables);
  while (remaining.size > 0) {
    // A table goes when no table still to be emptied references it.
    const next = [...remaining].filter((table) => !edges.some((edge) => edge.parent === table && edge.child !== table && remaining.has(edge.child)));
    const batch = next.length > 0 ? next : [...remaining]; // a cycle: the cascades settle it
    for (const table of batch) {
      ordered.push(table);
      remaining.delete(table);
    }
  }
  return ordered;
}

/** Deletes every row of the store in every table with a store_id (the caller then deletes the store row). */
export async function eraseStoreRows(q: SqlRunner, storeId: number): Promise<Record<string, number>> {
  const deleted: Record<string, number> = {};
  for (const table of await storeTablesChildrenFirst(q)) {
    const count = await q.run(`delete from "${table}" where store_id = $1`, [storeId]);
    if (count > 0) deleted[table] = count;
  }
  return deleted;
}
