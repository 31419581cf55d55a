import { Migration } from '@mikro-orm/migrations';

/** The audit actions of the affiliate programme's admin decisions (affiliates/affiliate-admin.service.ts). */
const ADDED_AUDIT_ACTIONS = ['affiliate.override_changed', 'affiliate.payout_approved', 'affiliate.payout_rejected', 'affiliate.payout_paid'];

/**
 * Affiliate payouts (modules/affiliates/payouts.service.ts): a payout keeps its own amount; its items say
 * what it settled of each commission (negative for a refund of a commission already paid out). At most
 * one open (requested or approved) payout per affiliate, also when two requests race.
 */
export class Migration20261129080062_affiliate_payouts extends Migration {

  override name = 'Migration20261129080062_affiliate_payouts';

  override up(): void | Promise<void> {
    this.addSql(`create table "affiliate_payouts" ("id" serial primary key, "affiliate_id" int not null, "amount_minor" bigint not null, "currency" varchar(3) not null, "status" text not null, "requested_at" timestamptz not null, "approved_at" timestamptz null, "approved_by" int null, "paid_at" timestamptz null, "paid_by" int null, "rejected_at" timestamptz null, "rejected_by" int null, "reference" text null, "note" text null);`);
    this.addSql(`create index "affiliate_payouts_affiliate_id_requested_at_index" on "affiliate_payouts" ("affiliate_id", "requested_at");`);
    this.addSql(`create unique index "affiliate_payouts_one_open_per_affiliate" on "affiliate_payouts" ("affiliate_id") where "status" in ('requested', 'approved');`);

    this.addSql(`create table "affiliate_payout_items" ("id" serial primary key, "payout_id" int not null, "commission_id" int not null, "amount_minor" bigint not null);`);
    this.addSql(`create index "affiliate_payout_items_commission_id_index" on "affiliate_payout_items" ("commission_id");`);
    this.addSql(`alter table "affiliate_payout_items" add constraint "affiliate_payout_items_payout_id_commission_id_unique" unique ("payout_id", "commission_id");`);

    this.addSql(`alter table "affiliate_payouts" add constraint "affiliate_payouts_affiliate_id_foreign" foreign key ("affiliate_id") references "affiliates" ("id") on delete cascade;`);
    this.addSql(`alter table "affiliate_payouts" add constraint "affiliate_payouts_status_check" check ("status" in ('requested', 'approved', 'paid', 'rejected'));`);

    this.addSql(`alter table "affiliate_payout_items" add constraint "affiliate_payout_items_payout_id_foreign" foreign key ("payout_id") references "affiliate_payouts" ("id") on delete cascade;`);
    this.addSql(`alter table "affiliate_payout_items" add constraint "affiliate_payout_items_commission_id_foreign" foreign key ("commission_id") references "affiliate_commissions" ("id") on delete cascade;`);

    // Other migrations may have added actions of their own: the list is extended, not rewritten.
    this.addSql(extendAuditActions(ADDED_AUDIT_ACTIONS, 'add'));
  }

  override down(): void | Promise<void> {
    this.addSql(`delete from "audit_log_entries" where "action" in (${ADDED_AUDIT_ACTIONS.map((action) => `'${action}'`).join(', ')});`);
    this.addSql(extendAuditActions(ADDED_AUDIT_ACTIONS, 'remove'));
    this.addSql(`drop table if exists "affiliate_payout_items" cascade;`);
    this.addSql(`drop table if exists "affiliate_payouts" cascade;`);
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
