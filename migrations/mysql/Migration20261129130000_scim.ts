import { Migration } from '@mikro-orm/migrations';

/**
 * SCIM provisioning (behaviour §18): an organization's directory users, the teams its identity
 * provider made (directory groups) and their directory members, and the directory's default role.
 */
export class Migration20261129130000_scim extends Migration {
  override name = 'Migration20261129130000_scim';

  override async up(): Promise<void> {
    // The new tables compare text as the others do (Migration20261124230000_exact_identity).
    const [row] = await this.execute(
      `select table_collation as name from information_schema.tables where table_schema = database() and table_name = 'organizations'`,
    );
    const table = `default character set utf8mb4 collate ${String(row!.name)} engine = InnoDB`;
    for (const statement of [
      `create table \`directory_users\` (\`id\` varchar(36) not null, \`organization_id\` varchar(36) not null, \`user_name\` varchar(254) not null, \`user_name_key\` varchar(254) not null, \`email_key\` varchar(254) not null, \`external_id\` varchar(254) null, \`given_name\` varchar(100) not null, \`family_name\` varchar(100) not null, \`display_name\` varchar(254) not null, \`emails\` text not null, \`active\` tinyint(1) not null, \`user_id\` varchar(128) null, \`created_at\` datetime(3) not null, \`updated_at\` datetime(3) not null, primary key (\`id\`)) ${table};`,
      `alter table \`directory_users\` add index \`directory_users_organization_id_index\` (\`organization_id\`);`,
      `alter table \`directory_users\` add index \`directory_users_list_idx\` (\`organization_id\`, \`created_at\`, \`id\`);`,
      `alter table \`directory_users\` add index \`directory_users_email_idx\` (\`organization_id\`, \`email_key\`);`,
      `alter table \`directory_users\` add index \`directory_users_external_id_idx\` (\`organization_id\`, \`external_id\`);`,
      `alter table \`directory_users\` add index \`directory_users_user_idx\` (\`organization_id\`, \`user_id\`);`,
      `alter table \`directory_users\` add index \`directory_users_user_name_key_idx\` (\`user_name_key\`);`,
      `alter table \`directory_users\` add unique \`directory_users_user_name_unique\` (\`organization_id\`, \`user_name_key\`);`,
      `create table \`directory_group_members\` (\`team_id\` varchar(36) not null, \`directory_user_id\` varchar(36) not null, primary key (\`team_id\`, \`directory_user_id\`)) ${table};`,
      `alter table \`directory_group_members\` add index \`directory_group_members_team_id_index\` (\`team_id\`);`,
      `alter table \`directory_group_members\` add index \`directory_group_members_directory_user_id_index\` (\`directory_user_id\`);`,
      `create table \`directory_groups\` (\`team_id\` varchar(36) not null, \`organization_id\` varchar(36) not null, \`external_id\` varchar(254) null, primary key (\`team_id\`)) ${table};`,
      `alter table \`directory_groups\` add index \`directory_groups_team_id_index\` (\`team_id\`);`,
      `alter table \`directory_groups\` add index \`directory_groups_organization_id_index\` (\`organization_id\`);`,
      `alter table \`directory_groups\` add index \`directory_groups_external_id_idx\` (\`organization_id\`, \`external_id\`);`,
      `alter table \`organizations\` add \`directory_default_role\` varchar(64) not null default 'member';`,
      `alter table \`directory_users\` add constraint \`directory_users_organization_id_foreign\` foreign key (\`organization_id\`) references \`organizations\` (\`id\`) on delete cascade;`,
      `alter table \`directory_group_members\` add constraint \`directory_group_members_team_id_foreign\` foreign key (\`team_id\`) references \`teams\` (\`id\`) on update cascade on delete cascade;`,
      `alter table \`directory_group_members\` add constraint \`directory_group_members_directory_user_id_foreign\` foreign key (\`directory_user_id\`) references \`directory_users\` (\`id\`) on update cascade on delete cascade;`,
      `alter table \`directory_groups\` add constraint \`directory_groups_team_id_foreign\` foreign key (\`team_id\`) references \`teams\` (\`id\`) on update cascade on delete cascade;`,
      `alter table \`directory_groups\` add constraint \`directory_groups_organization_id_foreign\` foreign key (\`organization_id\`) references \`organizations\` (\`id\`) on delete cascade;`,
    ]) {
      await this.execute(statement);
    }
  }
}
