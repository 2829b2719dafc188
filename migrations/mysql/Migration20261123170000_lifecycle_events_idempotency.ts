import { Migration } from '@mikro-orm/migrations';

/**
 * Organizations get `updated_at` (filled from `created_at` for existing rows) and `version` (the
 * row every change writes first); new tables for invitations, the audit trail and idempotency keys.
 */
export class Migration20261123170000_lifecycle_events_idempotency extends Migration {
  override name = 'Migration20261123170000_lifecycle_events_idempotency';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table \`organizations\` add \`updated_at\` datetime(3) null, add \`version\` int not null default 0;`,
    );
    this.addSql(`update \`organizations\` set \`updated_at\` = \`created_at\`;`);
    this.addSql(`alter table \`organizations\` modify \`updated_at\` datetime(3) not null;`);

    this.addSql(
      `create table \`invitations\` (\`id\` varchar(36) not null, \`organization_id\` varchar(36) not null, \`email\` varchar(254) not null, \`role\` enum('owner','admin','member') not null, \`status\` enum('pending','accepted','declined','revoked') not null, \`invited_by\` varchar(128) not null, \`created_at\` datetime(3) not null, \`expires_at\` datetime(3) not null, \`updated_at\` datetime(3) not null, primary key (\`id\`)) default character set utf8mb4 engine = InnoDB;`,
    );
    this.addSql(`alter table \`invitations\` add index \`invitations_organization_id_index\` (\`organization_id\`);`);
    this.addSql(`alter table \`invitations\` add index \`invitations_invited_by_index\` (\`invited_by\`);`);
    this.addSql(
      `alter table \`invitations\` add index \`invitations_organization_status_idx\` (\`organization_id\`, \`status\`, \`created_at\`);`,
    );
    this.addSql(`alter table \`invitations\` add index \`invitations_email_status_idx\` (\`email\`, \`status\`);`);
    this.addSql(
      `alter table \`invitations\` add constraint \`invitations_organization_id_foreign\` foreign key (\`organization_id\`) references \`organizations\` (\`id\`) on delete cascade;`,
    );
    this.addSql(
      `alter table \`invitations\` add constraint \`invitations_invited_by_foreign\` foreign key (\`invited_by\`) references \`users\` (\`id\`);`,
    );

    this.addSql(
      `create table \`organization_events\` (\`event_id\` varchar(36) not null, \`organization_id\` varchar(36) not null, \`type\` varchar(32) not null, \`actor_user_id\` varchar(128) not null, \`subject_user_id\` varchar(128) null, \`data\` text not null, \`created_at\` datetime(3) not null, primary key (\`event_id\`)) default character set utf8mb4 engine = InnoDB;`,
    );
    this.addSql(
      `alter table \`organization_events\` add index \`organization_events_organization_idx\` (\`organization_id\`, \`event_id\`);`,
    );

    this.addSql(
      `create table \`idempotency_keys\` (\`caller_id\` varchar(128) not null, \`idempotency_key\` varchar(255) not null, \`fingerprint\` varchar(64) not null, \`response_body\` text null, \`created_at\` datetime(3) not null, primary key (\`caller_id\`, \`idempotency_key\`)) default character set utf8mb4 engine = InnoDB;`,
    );
    this.addSql(`alter table \`idempotency_keys\` add index \`idempotency_keys_created_idx\` (\`created_at\`);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists \`idempotency_keys\`;`);
    this.addSql(`drop table if exists \`organization_events\`;`);
    this.addSql(`drop table if exists \`invitations\`;`);
    this.addSql(`alter table \`organizations\` drop column \`updated_at\`, drop column \`version\`;`);
  }
}
