import { Migration } from '@mikro-orm/migrations';

/**
 * Roles as data (behaviour §11): a membership's and an invitation's role may be any role the
 * organization has, so the role columns become names (they were an enum of the built-in three);
 * organizations get roles of their own; memberships may expire, and an invitation carries the
 * expiry of the membership it makes.
 */
export class Migration20261125120000_roles_and_expiry extends Migration {
  override name = 'Migration20261125120000_roles_and_expiry';

  override async up(): Promise<void> {
    // The new table compares text as the others do: their binary NO PAD collation, whichever name
    // this server has for it (Migration20261124230000_exact_identity).
    const [row] = await this.execute(
      `select table_collation as name from information_schema.tables where table_schema = database() and table_name = 'organizations'`,
    );
    this.addSql(
      `create table \`organization_roles\` (\`organization_id\` varchar(36) not null, \`name\` varchar(64) not null, \`description\` varchar(500) not null, \`permissions\` text not null, \`created_at\` datetime(3) not null, \`updated_at\` datetime(3) not null, primary key (\`organization_id\`, \`name\`)) default character set utf8mb4 collate ${String(row!.name)} engine = InnoDB;`,
    );
    this.addSql(
      `alter table \`organization_roles\` add index \`organization_roles_organization_id_index\` (\`organization_id\`);`,
    );
    this.addSql(
      `alter table \`organization_roles\` add constraint \`organization_roles_organization_id_foreign\` foreign key (\`organization_id\`) references \`organizations\` (\`id\`) on delete cascade;`,
    );

    this.addSql(
      `alter table \`organization_users\` add \`expires_at\` datetime(3) null, modify \`role\` varchar(64) not null, add index \`organization_users_expires_idx\` (\`expires_at\`);`,
    );
    this.addSql(
      `alter table \`invitations\` add \`membership_expires_at\` datetime(3) null, modify \`role\` varchar(64) not null;`,
    );
  }

  /** Back to the built-in roles: fails while a membership or invitation holds another role. */
  override down(): void {
    this.addSql(`drop table \`organization_roles\`;`);
    this.addSql(
      `alter table \`organization_users\` drop index \`organization_users_expires_idx\`, drop \`expires_at\`, modify \`role\` enum('owner','admin','member') not null;`,
    );
    this.addSql(
      `alter table \`invitations\` drop \`membership_expires_at\`, modify \`role\` enum('owner','admin','member') not null;`,
    );
  }
}
