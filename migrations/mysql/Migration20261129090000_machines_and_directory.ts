import { Migration } from '@mikro-orm/migrations';
import { fillOrganizationColumns } from '../directory-columns.ts';

/**
 * Machines and the directory (behaviour §15, §16): organizations' API keys and the application's
 * keys; events and invitations made by a key name it (`actor_key_id`, `invited_by_key_id`) and no
 * person, and an invitation outlives the record of the person who made it; organizations get a slug,
 * public and private metadata, a seat limit and a count of their members; memberships get public
 * metadata. Statements run one by one, in order: the slugs are filled between the columns and
 * their unique index.
 */
export class Migration20261129090000_machines_and_directory extends Migration {
  override name = 'Migration20261129090000_machines_and_directory';

  override async up(): Promise<void> {
    // The new tables compare text as the others do (Migration20261124230000_exact_identity).
    const [row] = await this.execute(
      `select table_collation as name from information_schema.tables where table_schema = database() and table_name = 'organizations'`,
    );
    const table = `default character set utf8mb4 collate ${String(row!.name)} engine = InnoDB`;
    for (const statement of [
      `create table \`application_keys\` (\`id\` varchar(36) not null, \`name\` varchar(100) not null, \`prefix\` varchar(16) not null, \`secret_hash\` varchar(43) not null, \`created_at\` datetime(3) not null, \`revoked_at\` datetime(3) null, \`last_used_at\` datetime(3) null, primary key (\`id\`)) ${table};`,
      `alter table \`application_keys\` add unique \`application_keys_secret_hash_unique\` (\`secret_hash\`);`,
      `create table \`api_keys\` (\`id\` varchar(36) not null, \`organization_id\` varchar(36) not null, \`name\` varchar(100) not null, \`role\` varchar(64) not null, \`prefix\` varchar(16) not null, \`secret_hash\` varchar(43) not null, \`created_by\` varchar(128) not null, \`created_at\` datetime(3) not null, \`expires_at\` datetime(3) null, \`revoked_at\` datetime(3) null, \`last_used_at\` datetime(3) null, primary key (\`id\`)) ${table};`,
      `alter table \`api_keys\` add index \`api_keys_organization_id_index\` (\`organization_id\`);`,
      `alter table \`api_keys\` add unique \`api_keys_secret_hash_unique\` (\`secret_hash\`);`,
      `alter table \`api_keys\` add index \`api_keys_list_idx\` (\`organization_id\`, \`created_at\`, \`id\`);`,
      `alter table \`api_keys\` add constraint \`api_keys_organization_id_foreign\` foreign key (\`organization_id\`) references \`organizations\` (\`id\`) on delete cascade;`,
      `alter table \`invitations\` drop foreign key \`invitations_invited_by_foreign\`;`,
      `alter table \`invitations\` add \`invited_by_key_id\` varchar(36) null, modify \`invited_by\` varchar(128) null;`,
      `alter table \`invitations\` add constraint \`invitations_invited_by_foreign\` foreign key (\`invited_by\`) references \`users\` (\`id\`) on delete set null;`,
      `alter table \`organization_events\` add \`actor_key_id\` varchar(36) null, modify \`actor_user_id\` varchar(128) null;`,
      `alter table \`organizations\` add \`slug\` varchar(64) not null default '', add \`public_metadata\` text not null default ('{}'), add \`private_metadata\` text not null default ('{}'), add \`max_members\` int null, add \`member_count\` int not null default 0;`,
      `alter table \`organization_users\` add \`public_metadata\` text not null default ('{}');`,
      `alter table \`organization_users\` add index \`organization_users_lapsed_idx\` (\`organization_id\`, \`expires_at\`);`,
    ]) {
      await this.execute(statement);
    }
    await fillOrganizationColumns(this);
    await this.execute(`alter table \`organizations\` add unique \`organizations_slug_unique\` (\`slug\`);`);
  }
}
