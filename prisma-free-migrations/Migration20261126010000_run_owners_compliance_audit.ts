import { Migration } from '@mikro-orm/migrations';

/** The audit actions this migration adds (the Shopify compliance webhooks, integrations/webhooks.ts). */
const ADDED_AUDIT_ACTIONS = ['shopify.customer_data_request', 'shopify.customer_redact', 'shopify.shop_redact'];

export class Migration20261126010000_run_owners_compliance_audit extends Migration {

  override name = 'Migration20261126010000_run_owners_compliance_audit';

  override up(): void | Promise<void> {
    // A running sync belongs to the process running it: `owner` names the process, `owner_seen_at`
    // is refreshed by it every few seconds, so a run whose owner stopped refreshing lost its worker
    // and another process takes it over (integrations/sync-runner.ts); `takeovers` counts how often.
    this.addSql(`alter table "sync_runs" add column "owner" varchar(64) null, add column "owner_seen_at" timestamptz null, add column "takeovers" smallint not null default 0;`);
    // The deliveries not processed yet: what the start-up check for deliveries without a job reads
    // (a scan of every delivery kept for 30 days would not do at 100 a second).
    this.addSql(`create index "webhook_deliveries_pending_index" on "webhook_deliveries" ("store_id", "id") where processed_at is null;`);
    // The audit log's action list grows by the compliance webhooks' actions. Other migrations may
    // have added actions of their own: the list is extended, not rewritten.
    this.addSql(extendAuditActions(ADDED_AUDIT_ACTIONS, 'add'));
  }

  override down(): void | Promise<void> {
    this.addSql(`delete from "audit_log_entries" where "action" in (${ADDED_AUDIT_ACTIONS.map((action) => `'${action}'`).join(', ')});`);
    this.addSql(extendAuditActions(ADDED_AUDIT_ACTIONS, 'remove'));
    this.addSql(`drop index if exists "webhook_deliveries_pending_index";`);
    this.addSql(`alter table "sync_runs" drop column "owner", drop column "owner_seen_at", drop column "takeovers";`);
  }

}

/** Rewrites audit_log_entries_action_check as its current values plus (or minus) `actions`. */
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
