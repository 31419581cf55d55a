import { Migration } from '@mikro-orm/migrations';

/**
 * Landing page reviews (modules/page-reviewer) may name one of the store's advertising campaigns
 * (ad_metrics_daily's platform and campaign id, and the campaign's name when the review was started).
 */
export class Migration20261129040010_page_review_campaigns extends Migration {

  override name = 'Migration20261129040010_page_review_campaigns';

  override up(): void | Promise<void> {
    this.addSql(`alter table "page_reviews" add column "campaign_platform" varchar(32) null, add column "campaign_id" varchar(64) null, add column "campaign_name" text null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "page_reviews" drop column "campaign_platform", drop column "campaign_id", drop column "campaign_name";`);
  }

}
