import { Migration } from '@mikro-orm/migrations';

/**
 * A person's own data (behaviour §15): `organizations.created_by` loses its foreign key to users,
 * so that a person may delete their record (the column keeps their id, as events do); the audit
 * trail gets indexes on its actor and subject, for a person's export.
 */
export class Migration20261129150000_account_deletion extends Migration {
  override name = 'Migration20261129150000_account_deletion';

  override up(): void {
    this.addSql(`alter table \`organizations\` drop foreign key \`organizations_created_by_foreign\`;`);
    this.addSql(
      `alter table \`organization_events\` add index \`organization_events_actor_idx\` (\`actor_user_id\`, \`event_id\`);`,
    );
    this.addSql(
      `alter table \`organization_events\` add index \`organization_events_subject_idx\` (\`subject_user_id\`, \`event_id\`);`,
    );
  }
}
