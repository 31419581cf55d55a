import { Migration } from '@mikro-orm/migrations';

/**
 * Customer loyalty (README, "Customer loyalty"): per customer the RFM scores and segment, the
 * BG/NBD churn risk and expected orders, the predicted 12-month value and the loyalty score; per
 * store the model that produced them (or the reason for the RFM fallback) and its holdout errors.
 * Written by the loyalty job, a store at a time in one transaction. `store_id` leads every key.
 */
export class Migration20261128130100_loyalty extends Migration {

  override name = 'Migration20261128130100_loyalty';

  override up(): void | Promise<void> {
    this.addSql(`create table "customer_loyalty" (
      "store_id" int not null,
      "customer_id" bigint not null,
      "orders" int not null,
      "spent_minor" bigint not null,
      "first_order_at" timestamptz not null,
      "last_order_at" timestamptz not null,
      "repeat_orders" int not null,
      "recency_days" int not null,
      "age_days" int not null,
      "r" smallint not null,
      "f" smallint not null,
      "m" smallint not null,
      "segment" text check ("segment" in ('champions', 'loyal', 'potential_loyalists', 'new', 'cant_lose_them', 'at_risk', 'hibernating', 'lost')) not null,
      "p_alive" double precision null,
      "churn_risk" double precision null,
      "expected_orders_90d" double precision null,
      "predicted_value_12m_minor" bigint null,
      "value_percentile" double precision null,
      "loyalty_score" smallint not null,
      "computed_at" timestamptz not null,
      primary key ("store_id", "customer_id"));`);
    this.addSql(`create index "customer_loyalty_segment_index" on "customer_loyalty" ("store_id", "segment", "predicted_value_12m_minor");`);
    this.addSql(`create index "customer_loyalty_value_index" on "customer_loyalty" ("store_id", "predicted_value_12m_minor");`);
    this.addSql(`alter table "customer_loyalty" add constraint "customer_loyalty_store_id_foreign" foreign key ("store_id") references "stores" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "customer_loyalty" add constraint "customer_loyalty_customer_foreign" foreign key ("store_id", "customer_id") references "customers" ("store_id", "id") on delete cascade;`);

    this.addSql(`create table "loyalty_models" (
      "store_id" int not null,
      "model" text check ("model" in ('bgnbd', 'rfm')) not null,
      "fallback_reason" text check ("fallback_reason" in ('too_few_customers', 'too_little_history', 'no_repeat_buyers', 'fit_failed')) null,
      "parameters" jsonb null,
      "customers" int not null,
      "history_days" int not null,
      "currency" char(3) not null,
      "holdout_mae" double precision null,
      "baseline_mae" double precision null,
      "holdout_customers" int null,
      "fitted_at" timestamptz not null,
      primary key ("store_id"));`);
    this.addSql(`alter table "loyalty_models" add constraint "loyalty_models_store_id_foreign" foreign key ("store_id") references "stores" ("id") on update cascade on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "customer_loyalty" cascade;`);
    this.addSql(`drop table if exists "loyalty_models" cascade;`);
  }

}
