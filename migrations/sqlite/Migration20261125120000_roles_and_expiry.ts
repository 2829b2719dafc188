import { Migration } from '@mikro-orm/migrations';

/**
 * Roles as data (behaviour §11): a membership's and an invitation's role may be any role the
 * organization has, so the role columns lose their check of the built-in three (SQLite changes a
 * column by copying its table); organizations get roles of their own; memberships may expire, and
 * an invitation carries the expiry of the membership it makes. Nothing references the two copied
 * tables, so they are dropped and renamed with the foreign keys on.
 */
export class Migration20261125120000_roles_and_expiry extends Migration {
  override name = 'Migration20261125120000_roles_and_expiry';

  override up(): void {
    this.addSql(
      `create table \`organization_roles\` (\`organization_id\` text not null, \`name\` text not null, \`description\` text not null, \`permissions\` text not null, \`created_at\` datetime not null, \`updated_at\` datetime not null, primary key (\`organization_id\`, \`name\`), constraint \`organization_roles_organization_id_foreign\` foreign key (\`organization_id\`) references \`organizations\` (\`id\`) on delete cascade);`,
    );
    this.addSql(
      `create index \`organization_roles_organization_id_index\` on \`organization_roles\` (\`organization_id\`);`,
    );

    this.addSql(
      `create table \`organization_users__temp_alter\` (\`organization_id\` text not null, \`user_id\` text not null, \`role\` text not null, \`created_at\` datetime not null, \`updated_at\` datetime not null, \`expires_at\` datetime null, primary key (\`organization_id\`, \`user_id\`), constraint \`organization_users_organization_id_foreign\` foreign key (\`organization_id\`) references \`organizations\` (\`id\`) on update cascade on delete cascade, constraint \`organization_users_user_id_foreign\` foreign key (\`user_id\`) references \`users\` (\`id\`) on update cascade on delete cascade);`,
    );
    this.addSql(
      `insert into \`organization_users__temp_alter\` select \`organization_id\`, \`user_id\`, \`role\`, \`created_at\`, \`updated_at\`, null as \`expires_at\` from \`organization_users\`;`,
    );
    this.addSql(`drop table \`organization_users\`;`);
    this.addSql(`alter table \`organization_users__temp_alter\` rename to \`organization_users\`;`);
    this.addSql(
      `create index \`organization_users_organization_id_index\` on \`organization_users\` (\`organization_id\`);`,
    );
    this.addSql(`create index \`organization_users_user_id_index\` on \`organization_users\` (\`user_id\`);`);
    this.addSql(
      `create index \`organization_users_list_idx\` on \`organization_users\` (\`organization_id\`, \`created_at\`, \`user_id\`);`,
    );
    this.addSql(`create index \`organization_users_expires_idx\` on \`organization_users\` (\`expires_at\`);`);

    this.addSql(
      `create table \`invitations__temp_alter\` (\`id\` text not null primary key, \`organization_id\` text not null, \`email\` text not null, \`role\` text not null, \`status\` text check (\`status\` in ('pending', 'accepted', 'declined', 'revoked')) not null, \`invited_by\` text not null, \`created_at\` datetime not null, \`expires_at\` datetime not null, \`updated_at\` datetime not null, \`membership_expires_at\` datetime null, constraint \`invitations_organization_id_foreign\` foreign key (\`organization_id\`) references \`organizations\` (\`id\`) on delete cascade, constraint \`invitations_invited_by_foreign\` foreign key (\`invited_by\`) references \`users\` (\`id\`));`,
    );
    this.addSql(
      `insert into \`invitations__temp_alter\` select \`id\`, \`organization_id\`, \`email\`, \`role\`, \`status\`, \`invited_by\`, \`created_at\`, \`expires_at\`, \`updated_at\`, null as \`membership_expires_at\` from \`invitations\`;`,
    );
    this.addSql(`drop table \`invitations\`;`);
    this.addSql(`alter table \`invitations__temp_alter\` rename to \`invitations\`;`);
    this.addSql(`create index \`invitations_organization_id_index\` on \`invitations\` (\`organization_id\`);`);
    this.addSql(`create index \`invitations_invited_by_index\` on \`invitations\` (\`invited_by\`);`);
    this.addSql(
      `create index \`invitations_organization_status_idx\` on \`invitations\` (\`organization_id\`, \`status\`, \`created_at\`);`,
    );
    this.addSql(`create index \`invitations_email_status_idx\` on \`invitations\` (\`email\`, \`status\`);`);
  }
}
