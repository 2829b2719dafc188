import { Migration } from '@mikro-orm/migrations';

/**
 * SCIM provisioning (behaviour §18): an organization's directory users, the teams its identity
 * provider made (directory groups) and their directory members, and the directory's default role.
 */
export class Migration20261129130000_scim extends Migration {
  override name = 'Migration20261129130000_scim';

  override async up(): Promise<void> {
    for (const statement of [
      `create table \`directory_users\` (\`id\` text not null primary key, \`organization_id\` text not null, \`user_name\` text not null, \`user_name_key\` text not null, \`email_key\` text not null, \`external_id\` text null, \`given_name\` text not null, \`family_name\` text not null, \`display_name\` text not null, \`emails\` text not null, \`active\` integer not null, \`user_id\` text null, \`created_at\` datetime not null, \`updated_at\` datetime not null, constraint \`directory_users_organization_id_foreign\` foreign key (\`organization_id\`) references \`organizations\` (\`id\`) on delete cascade);`,
      `create index \`directory_users_organization_id_index\` on \`directory_users\` (\`organization_id\`);`,
      `create index \`directory_users_list_idx\` on \`directory_users\` (\`organization_id\`, \`created_at\`, \`id\`);`,
      `create index \`directory_users_email_idx\` on \`directory_users\` (\`organization_id\`, \`email_key\`);`,
      `create index \`directory_users_external_id_idx\` on \`directory_users\` (\`organization_id\`, \`external_id\`);`,
      `create index \`directory_users_user_idx\` on \`directory_users\` (\`organization_id\`, \`user_id\`);`,
      `create index \`directory_users_user_name_key_idx\` on \`directory_users\` (\`user_name_key\`);`,
      `create unique index \`directory_users_user_name_unique\` on \`directory_users\` (\`organization_id\`, \`user_name_key\`);`,
      `create table \`directory_group_members\` (\`team_id\` text not null, \`directory_user_id\` text not null, primary key (\`team_id\`, \`directory_user_id\`), constraint \`directory_group_members_team_id_foreign\` foreign key (\`team_id\`) references \`teams\` (\`id\`) on update cascade on delete cascade, constraint \`directory_group_members_directory_user_id_foreign\` foreign key (\`directory_user_id\`) references \`directory_users\` (\`id\`) on update cascade on delete cascade);`,
      `create index \`directory_group_members_team_id_index\` on \`directory_group_members\` (\`team_id\`);`,
      `create index \`directory_group_members_directory_user_id_index\` on \`directory_group_members\` (\`directory_user_id\`);`,
      `create table \`directory_groups\` (\`team_id\` text not null primary key, \`organization_id\` text not null, \`external_id\` text null, constraint \`directory_groups_team_id_foreign\` foreign key (\`team_id\`) references \`teams\` (\`id\`) on update cascade on delete cascade, constraint \`directory_groups_organization_id_foreign\` foreign key (\`organization_id\`) references \`organizations\` (\`id\`) on delete cascade);`,
      `create index \`directory_groups_team_id_index\` on \`directory_groups\` (\`team_id\`);`,
      `create index \`directory_groups_organization_id_index\` on \`directory_groups\` (\`organization_id\`);`,
      `create index \`directory_groups_external_id_idx\` on \`directory_groups\` (\`organization_id\`, \`external_id\`);`,
      `alter table \`organizations\` add column \`directory_default_role\` text not null default 'member';`,
    ]) {
      await this.execute(statement);
    }
  }
}
