import { Migration } from '@mikro-orm/migrations';

export class Migration20261125230000_oauth_state_session extends Migration {

  override name = 'Migration20261125230000_oauth_state_session';

  override up(): void | Promise<void> {
    // An OAuth flow is finished only by the browser session that started it (integrations.service.ts
    // completeOAuth). States written before this column have none and are refused; they last minutes.
    this.addSql(`alter table "oauth_states" add column "session_key" varchar(64) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "oauth_states" drop column "session_key";`);
  }

}
