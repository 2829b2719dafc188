import { Migration } from '@mikro-orm/migrations';

/**
 * Teams (behaviour §12): an organization's teams, the roles each gives and its members. A team
 * member's row references the membership it rests on, so that the database removes a user from
 * the organization's teams with their membership, and refuses a team member who is not a member.
 */
export class Migration20261126090000_teams extends Migration {
  override name = 'Migration20261126090000_teams';

  override async up(): Promise<void> {
    // The new tables compare text as the others do: their binary NO PAD collation, whichever name
    // this server has for it (Migration20261124230000_exact_identity).
    const [row] = await this.execute(
      `select table_collation as name from information_schema.tables where table_schema = database() and table_name = 'organizations'`,
    );
    const table = `default character set utf8mb4 collate ${String(row!.name)} engine = InnoDB`;
    this.addSql(
      `create table \`teams\` (\`id\` varchar(36) not null, \`organization_id\` varchar(36) not null, \`name\` varchar(100) not null, \`name_key\` varchar(300) not null, \`description\` varchar(1000) not null, \`created_at\` datetime(3) not null, \`updated_at\` datetime(3) not null, primary key (\`id\`)) ${table};`,
    );
    this.addSql(`alter table \`teams\` add index \`teams_organization_id_index\` (\`organization_id\`);`);
    this.addSql(`alter table \`teams\` add index \`teams_list_idx\` (\`organization_id\`, \`created_at\`, \`id\`);`);
    this.addSql(`alter table \`teams\` add unique \`teams_name_key_unique\` (\`organization_id\`, \`name_key\`);`);

    this.addSql(
      `create table \`team_roles\` (\`team_id\` varchar(36) not null, \`role\` varchar(64) not null, \`permissions\` text null, primary key (\`team_id\`, \`role\`)) ${table};`,
    );
    this.addSql(`alter table \`team_roles\` add index \`team_roles_team_id_index\` (\`team_id\`);`);

    this.addSql(
      `create table \`team_members\` (\`team_id\` varchar(36) not null, \`organization_id\` varchar(36) not null, \`user_id\` varchar(128) not null, \`added_at\` datetime(3) not null, primary key (\`team_id\`, \`organization_id\`, \`user_id\`)) ${table};`,
    );
    this.addSql(`alter table \`team_members\` add index \`team_members_team_id_index\` (\`team_id\`);`);
    this.addSql(
      `alter table \`team_members\` add index \`team_members_list_idx\` (\`team_id\`, \`added_at\`, \`organization_id\`, \`user_id\`);`,
    );
    this.addSql(
      `alter table \`team_members\` add index \`team_members_organization_id_user_id_index\` (\`organization_id\`, \`user_id\`);`,
    );

    this.addSql(
      `alter table \`teams\` add constraint \`teams_organization_id_foreign\` foreign key (\`organization_id\`) references \`organizations\` (\`id\`) on delete cascade;`,
    );
    this.addSql(
      `alter table \`team_roles\` add constraint \`team_roles_team_id_foreign\` foreign key (\`team_id\`) references \`teams\` (\`id\`) on delete cascade;`,
    );
    this.addSql(
      `alter table \`team_members\` add constraint \`team_members_team_id_foreign\` foreign key (\`team_id\`) references \`teams\` (\`id\`) on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table \`team_members\` add constraint \`team_members_organization_id_user_id_foreign\` foreign key (\`organization_id\`, \`user_id\`) references \`organization_users\` (\`organization_id\`, \`user_id\`) on update cascade on delete cascade;`,
    );
  }

  override down(): void {
    this.addSql(`drop table \`team_members\`;`);
    this.addSql(`drop table \`team_roles\`;`);
    this.addSql(`drop table \`teams\`;`);
  }
}
