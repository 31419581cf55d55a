import { Migration } from '@mikro-orm/migrations';

/** The audit action of an administrator's "Retry delivery" of a failed e-mail (modules/email/email.router.ts). */
const ADDED_AUDIT_ACTIONS = ['email.retry_delivery'];

export class Migration20261129080091_email_retry_audit extends Migration {

  override name = 'Migration20261129080091_email_retry_audit';

  override up(): void | Promise<void> {
    // Other migrations may have added actions of their own: the list is extended, not rewritten.
    this.addSql(extendAuditActions(ADDED_AUDIT_ACTIONS, 'add'));
  }

  override down(): void | Promise<void> {
    this.addSql(`delete from "audit_log_entries" where "action" in (${ADDED_AUDIT_ACTIONS.map((action) => `'${action}'`).join(', ')});`);
    this.addSql(extendAuditActions(ADDED_AUDIT_ACTIONS, 'remove'));
  }

}

/** Rewrites audit_log_entries_action_check as its current values plus (or minus) `actions` (a copy of the one in Migration20261126010000: a migration stays as it was written, so it imports no other). */
function extendAuditActions(actions: string[], change: 'add' | 'remove'): string {
  const list = `array[${actions.map((action) => `'${action}'`).join(', ')}]::text[]`;
  const combine = change === 'add' ? `select distinct unnest(current || ${list})` : `select unnest(current) except select unnest(${list})`;
  return `do $$
declare
  current text[];
  wanted text[];
begin
  select coalesce(array_agg(m[1]), '{}') into current
    from pg_constraint c, regexp_matches(pg_get_constraintdef(c.oid), '''([^'']+)''', 'g') as m
   where c.conrelid = 'audit_log_entries'::regclass and c.conname = 'audit_log_entries_action_check';
  select array_agg(value order by value) into wanted from (${combine}) as t(value);
  alter table "audit_log_entries" drop constraint if exists "audit_log_entries_action_check";
  execute format('alter table "audit_log_entries" add constraint "audit_log_entries_action_check" check ("action" in (%s))',
                 (select string_agg(quote_literal(value), ', ') from unnest(wanted) as value));
end $$;`;
}
