import { Migration } from '@mikro-orm/migrations';

/**
 * A person's own data (behaviour §15): `organizations.created_by` loses its foreign key to users,
 * so that a person may delete their record (the column keeps their id, as events do); the audit
 * trail gets indexes on its actor and subject, for a person's export.
 *
 * SQLite drops a foreign key only by rebuilding the table, as in
 * Migration20261123170000_lifecycle_events_idempotency: foreign keys off (ignored inside a
 * transaction, hence a migration that runs its own), copy, drop, rename; with foreign keys on,
 * dropping the old table would cascade to every membership.
 */
export class Migration20261129150000_account_deletion extends Migration {
  override name = 'Migration20261129150000_account_deletion';

  override isTransactional(): boolean {
    return false;
  }

  override up(): void {
    const columns =
      '`id`, `name`, `description`, `created_by`, `created_at`, `updated_at`, `version`, `slug`, `public_metadata`, `private_metadata`, `max_members`, `member_count`, `directory_default_role`';
    this.addSql(`pragma foreign_keys = off;`);
    this.addSql(`begin;`);
    this.addSql(
      "create table `organizations__new` (`id` text not null primary key, `name` text not null, `description` text not null, `created_by` text not null, `created_at` datetime not null, `updated_at` datetime not null, `version` integer not null default 0, `slug` text not null default '', `public_metadata` text not null default '{}', `private_metadata` text not null default '{}', `max_members` integer null, `member_count` integer not null default 0, `directory_default_role` text not null default 'member');",
    );
    this.addSql(`insert into \`organizations__new\` (${columns}) select ${columns} from \`organizations\`;`);
    this.addSql(`drop table \`organizations\`;`);
    this.addSql(`alter table \`organizations__new\` rename to \`organizations\`;`);
    this.addSql(`create index \`organizations_created_by_index\` on \`organizations\` (\`created_by\`);`);
    this.addSql(`create unique index \`organizations_slug_unique\` on \`organizations\` (\`slug\`);`);
    this.addSql(
      `create index \`organization_events_actor_idx\` on \`organization_events\` (\`actor_user_id\`, \`event_id\`);`,
    );
    this.addSql(
      `create index \`organization_events_subject_idx\` on \`organization_events\` (\`subject_user_id\`, \`event_id\`);`,
    );
    this.addSql(`pragma foreign_key_check;`);
    this.addSql(`commit;`);
    this.addSql(`pragma foreign_keys = on;`);
  }
}
