import { Migration } from '@mikro-orm/migrations';
import { fillOrganizationColumns } from '../directory-columns.ts';

/**
 * Machines and the directory (behaviour §15, §16): organizations' API keys and the application's
 * keys; events and invitations made by a key name it (`actor_key_id`, `invited_by_key_id`) and no
 * person, and an invitation outlives the record of the person who made it (SQLite changes a column
 * by copying its table; nothing references organization_events or invitations, so they are dropped
 * and renamed with the foreign keys on); organizations get a slug, public and private metadata, a seat
 * limit and a count of their members; memberships get public metadata. Statements run one by one,
 * in order: the slugs are filled between the columns and their unique index.
 */
export class Migration20261129090000_machines_and_directory extends Migration {
  override name = 'Migration20261129090000_machines_and_directory';

  override async up(): Promise<void> {
    for (const statement of [
      `create table \`application_keys\` (\`id\` text not null primary key, \`name\` text not null, \`prefix\` text not null, \`secret_hash\` text not null, \`created_at\` datetime not null, \`revoked_at\` datetime null, \`last_used_at\` datetime null);`,
      `create unique index \`application_keys_secret_hash_unique\` on \`application_keys\` (\`secret_hash\`);`,
      `create table \`api_keys\` (\`id\` text not null primary key, \`organization_id\` text not null, \`name\` text not null, \`role\` text not null, \`prefix\` text not null, \`secret_hash\` text not null, \`created_by\` text not null, \`created_at\` datetime not null, \`expires_at\` datetime null, \`revoked_at\` datetime null, \`last_used_at\` datetime null, constraint \`api_keys_organization_id_foreign\` foreign key (\`organization_id\`) references \`organizations\` (\`id\`) on delete cascade);`,
      `create index \`api_keys_organization_id_index\` on \`api_keys\` (\`organization_id\`);`,
      `create unique index \`api_keys_secret_hash_unique\` on \`api_keys\` (\`secret_hash\`);`,
      `create index \`api_keys_list_idx\` on \`api_keys\` (\`organization_id\`, \`created_at\`, \`id\`);`,
      `create table \`organization_events__temp_alter\` (\`event_id\` text not null primary key, \`organization_id\` text not null, \`type\` text not null, \`actor_user_id\` text null, \`actor_key_id\` text null, \`subject_user_id\` text null, \`data\` text not null, \`created_at\` datetime not null);`,
      `insert into \`organization_events__temp_alter\` select \`event_id\`, \`organization_id\`, \`type\`, \`actor_user_id\`, null as \`actor_key_id\`, \`subject_user_id\`, \`data\`, \`created_at\` from \`organization_events\`;`,
      `drop table \`organization_events\`;`,
      `alter table \`organization_events__temp_alter\` rename to \`organization_events\`;`,
      `create index \`organization_events_organization_idx\` on \`organization_events\` (\`organization_id\`, \`event_id\`);`,
      `create table \`invitations__temp_alter\` (\`id\` text not null primary key, \`organization_id\` text not null, \`email\` text not null, \`role\` text not null, \`status\` text check (\`status\` in ('pending', 'accepted', 'declined', 'revoked')) not null, \`invited_by\` text null, \`invited_by_key_id\` text null, \`created_at\` datetime not null, \`expires_at\` datetime not null, \`updated_at\` datetime not null, \`membership_expires_at\` datetime null, constraint \`invitations_organization_id_foreign\` foreign key (\`organization_id\`) references \`organizations\` (\`id\`) on delete cascade, constraint \`invitations_invited_by_foreign\` foreign key (\`invited_by\`) references \`users\` (\`id\`) on delete set null);`,
      `insert into \`invitations__temp_alter\` select \`id\`, \`organization_id\`, \`email\`, \`role\`, \`status\`, \`invited_by\`, null as \`invited_by_key_id\`, \`created_at\`, \`expires_at\`, \`updated_at\`, \`membership_expires_at\` from \`invitations\`;`,
      `drop table \`invitations\`;`,
      `alter table \`invitations__temp_alter\` rename to \`invitations\`;`,
      `create index \`invitations_organization_id_index\` on \`invitations\` (\`organization_id\`);`,
      `create index \`invitations_invited_by_index\` on \`invitations\` (\`invited_by\`);`,
      `create index \`invitations_organization_status_idx\` on \`invitations\` (\`organization_id\`, \`status\`, \`created_at\`);`,
      `create index \`invitations_email_status_idx\` on \`invitations\` (\`email\`, \`status\`);`,
      `alter table \`organizations\` add column \`slug\` text not null default '';`,
      `alter table \`organizations\` add column \`public_metadata\` text not null default '{}';`,
      `alter table \`organizations\` add column \`private_metadata\` text not null default '{}';`,
      `alter table \`organizations\` add column \`max_members\` integer null;`,
      `alter table \`organizations\` add column \`member_count\` integer not null default 0;`,
      `alter table \`organization_users\` add column \`public_metadata\` text not null default '{}';`,
      `create index \`organization_users_lapsed_idx\` on \`organization_users\` (\`organization_id\`, \`expires_at\`);`,
    ]) {
      await this.execute(statement);
    }
    await fillOrganizationColumns(this);
    await this.execute(`create unique index \`organizations_slug_unique\` on \`organizations\` (\`slug\`);`);
  }
}
