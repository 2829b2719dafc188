import { Migration } from '@mikro-orm/migrations';

/**
 * Teams (behaviour §12): an organization's teams, the roles each gives and its members. A team
 * member's row references the membership it rests on, so that the database removes a user from
 * the organization's teams with their membership, and refuses a team member who is not a member.
 * A later migration that rebuilds `organization_users` by copying it must keep these rows: with
 * the foreign keys on, dropping the old table deletes them.
 */
export class Migration20261126090000_teams extends Migration {
  override name = 'Migration20261126090000_teams';

  override up(): void {
    this.addSql(
      `create table \`teams\` (\`id\` text not null primary key, \`organization_id\` text not null, \`name\` text not null, \`name_key\` text not null, \`description\` text not null, \`created_at\` datetime not null, \`updated_at\` datetime not null, constraint \`teams_organization_id_foreign\` foreign key (\`organization_id\`) references \`organizations\` (\`id\`) on delete cascade);`,
    );
    this.addSql(`create index \`teams_organization_id_index\` on \`teams\` (\`organization_id\`);`);
    this.addSql(`create index \`teams_list_idx\` on \`teams\` (\`organization_id\`, \`created_at\`, \`id\`);`);
    this.addSql(`create unique index \`teams_name_key_unique\` on \`teams\` (\`organization_id\`, \`name_key\`);`);

    this.addSql(
      `create table \`team_roles\` (\`team_id\` text not null, \`role\` text not null, \`permissions\` text null, primary key (\`team_id\`, \`role\`), constraint \`team_roles_team_id_foreign\` foreign key (\`team_id\`) references \`teams\` (\`id\`) on delete cascade);`,
    );
    this.addSql(`create index \`team_roles_team_id_index\` on \`team_roles\` (\`team_id\`);`);

    this.addSql(
      `create table \`team_members\` (\`team_id\` text not null, \`organization_id\` text not null, \`user_id\` text not null, \`added_at\` datetime not null, primary key (\`team_id\`, \`organization_id\`, \`user_id\`), constraint \`team_members_team_id_foreign\` foreign key (\`team_id\`) references \`teams\` (\`id\`) on update cascade on delete cascade, constraint \`team_members_organization_id_user_id_foreign\` foreign key (\`organization_id\`, \`user_id\`) references \`organization_users\` (\`organization_id\`, \`user_id\`) on update cascade on delete cascade);`,
    );
    this.addSql(`create index \`team_members_team_id_index\` on \`team_members\` (\`team_id\`);`);
    this.addSql(
      `create index \`team_members_list_idx\` on \`team_members\` (\`team_id\`, \`added_at\`, \`organization_id\`, \`user_id\`);`,
    );
    this.addSql(
      `create index \`team_members_organization_id_user_id_index\` on \`team_members\` (\`organization_id\`, \`user_id\`);`,
    );
  }
}
