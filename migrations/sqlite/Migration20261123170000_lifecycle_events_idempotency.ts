import { Migration } from '@mikro-orm/migrations';

/**
 * Organizations get `updated_at` (filled from `created_at` for existing rows) and `version` (the
 * row every change writes first); new tables for invitations, the audit trail and idempotency keys.
 *
 * SQLite cannot add a NOT NULL column without a default to a table with rows, nor drop a default
 * later, so `organizations` is rebuilt, as SQLite's documentation prescribes: foreign keys off
 * (which SQLite ignores inside a transaction, hence a migration that runs its own), then copy, drop,
 * rename, check. With foreign keys on, dropping the old table would cascade to every membership.
 */
export class Migration20261123170000_lifecycle_events_idempotency extends Migration {
  override name = 'Migration20261123170000_lifecycle_events_idempotency';

  override isTransactional(): boolean {
    return false;
  }

  override up(): void | Promise<void> {
    this.addSql(`pragma foreign_keys = off;`);
    this.addSql(`begin;`);
    this.addSql(
      `create table \`organizations__new\` (\`id\` text not null primary key, \`name\` text not null, \`description\` text not null, \`created_by\` text not null, \`created_at\` datetime not null, \`updated_at\` datetime not null, \`version\` integer not null default 0, constraint \`organizations_created_by_foreign\` foreign key (\`created_by\`) references \`users\` (\`id\`));`,
    );
    this.addSql(
      `insert into \`organizations__new\` (\`id\`, \`name\`, \`description\`, \`created_by\`, \`created_at\`, \`updated_at\`, \`version\`) select \`id\`, \`name\`, \`description\`, \`created_by\`, \`created_at\`, \`created_at\`, 0 from \`organizations\`;`,
    );
    this.addSql(`drop table \`organizations\`;`);
    this.addSql(`alter table \`organizations__new\` rename to \`organizations\`;`);
    this.addSql(`create index \`organizations_created_by_index\` on \`organizations\` (\`created_by\`);`);

    this.addSql(
      `create table \`invitations\` (\`id\` text not null primary key, \`organization_id\` text not null, \`email\` text not null, \`role\` text check (\`role\` in ('owner', 'admin', 'member')) not null, \`status\` text check (\`status\` in ('pending', 'accepted', 'declined', 'revoked')) not null, \`invited_by\` text not null, \`created_at\` datetime not null, \`expires_at\` datetime not null, \`updated_at\` datetime not null, constraint \`invitations_organization_id_foreign\` foreign key (\`organization_id\`) references \`organizations\` (\`id\`) on delete cascade, constraint \`invitations_invited_by_foreign\` foreign key (\`invited_by\`) references \`users\` (\`id\`));`,
    );
    this.addSql(`create index \`invitations_organization_id_index\` on \`invitations\` (\`organization_id\`);`);
    this.addSql(`create index \`invitations_invited_by_index\` on \`invitations\` (\`invited_by\`);`);
    this.addSql(
      `create index \`invitations_organization_status_idx\` on \`invitations\` (\`organization_id\`, \`status\`, \`created_at\`);`,
    );
    this.addSql(`create index \`invitations_email_status_idx\` on \`invitations\` (\`email\`, \`status\`);`);

    this.addSql(
      `create table \`organization_events\` (\`event_id\` text not null primary key, \`organization_id\` text not null, \`type\` text not null, \`actor_user_id\` text not null, \`subject_user_id\` text null, \`data\` text not null, \`created_at\` datetime not null);`,
    );
    this.addSql(
      `create index \`organization_events_organization_idx\` on \`organization_events\` (\`organization_id\`, \`event_id\`);`,
    );

    this.addSql(
      `create table \`idempotency_keys\` (\`caller_id\` text not null, \`idempotency_key\` text not null, \`fingerprint\` text not null, \`response_body\` text null, \`created_at\` datetime not null, primary key (\`caller_id\`, \`idempotency_key\`));`,
    );
    this.addSql(`create index \`idempotency_keys_created_idx\` on \`idempotency_keys\` (\`created_at\`);`);
    this.addSql(`commit;`);
    this.addSql(`pragma foreign_keys = on;`);
  }
}
