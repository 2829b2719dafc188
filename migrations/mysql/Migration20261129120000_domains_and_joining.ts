import { Migration } from '@mikro-orm/migrations';

/**
 * Verified domains and joining (behaviour §17): an organization's e-mail domains, each verified at
 * most once across organizations (a unique index on `verified_domain`, null while pending); people's
 * join requests; and the automatic invitations domains made, each once per person and domain.
 */
export class Migration20261129120000_domains_and_joining extends Migration {
  override name = 'Migration20261129120000_domains_and_joining';

  override async up(): Promise<void> {
    // The new tables compare text as the others do (Migration20261124230000_exact_identity).
    const [row] = await this.execute(
      `select table_collation as name from information_schema.tables where table_schema = database() and table_name = 'organizations'`,
    );
    const table = `default character set utf8mb4 collate ${String(row!.name)} engine = InnoDB`;
    for (const statement of [
      `create table \`organization_domains\` (\`id\` varchar(36) not null, \`organization_id\` varchar(36) not null, \`domain\` varchar(253) not null, \`verification_value\` varchar(64) not null, \`enrollment\` enum('manual','suggestion','automatic_invitation','automatic') not null, \`default_role\` varchar(64) not null, \`created_at\` datetime(3) not null, \`verified_at\` datetime(3) null, \`verified_domain\` varchar(253) null, primary key (\`id\`)) ${table};`,
      `alter table \`organization_domains\` add index \`organization_domains_organization_id_index\` (\`organization_id\`);`,
      `alter table \`organization_domains\` add unique \`organization_domains_verified_domain_unique\` (\`verified_domain\`);`,
      `alter table \`organization_domains\` add index \`organization_domains_list_idx\` (\`organization_id\`, \`created_at\`, \`id\`);`,
      `alter table \`organization_domains\` add unique \`organization_domains_organization_domain_unique\` (\`organization_id\`, \`domain\`);`,
      `create table \`join_requests\` (\`id\` varchar(36) not null, \`organization_id\` varchar(36) not null, \`user_id\` varchar(128) not null, \`role\` varchar(64) not null, \`status\` enum('pending','approved','rejected','withdrawn') not null, \`created_at\` datetime(3) not null, \`updated_at\` datetime(3) not null, primary key (\`id\`)) ${table};`,
      `alter table \`join_requests\` add index \`join_requests_organization_id_index\` (\`organization_id\`);`,
      `alter table \`join_requests\` add index \`join_requests_user_id_index\` (\`user_id\`);`,
      `alter table \`join_requests\` add index \`join_requests_organization_status_idx\` (\`organization_id\`, \`status\`, \`created_at\`, \`id\`);`,
      `alter table \`join_requests\` add index \`join_requests_user_idx\` (\`user_id\`, \`created_at\`);`,
      `create table \`domain_invitations\` (\`domain_id\` varchar(36) not null, \`user_id\` varchar(128) not null, \`created_at\` datetime(3) not null, primary key (\`domain_id\`, \`user_id\`)) ${table};`,
      `alter table \`domain_invitations\` add index \`domain_invitations_domain_id_index\` (\`domain_id\`);`,
      `alter table \`domain_invitations\` add index \`domain_invitations_user_id_index\` (\`user_id\`);`,
      `alter table \`organization_domains\` add constraint \`organization_domains_organization_id_foreign\` foreign key (\`organization_id\`) references \`organizations\` (\`id\`) on delete cascade;`,
      `alter table \`join_requests\` add constraint \`join_requests_organization_id_foreign\` foreign key (\`organization_id\`) references \`organizations\` (\`id\`) on delete cascade;`,
      `alter table \`join_requests\` add constraint \`join_requests_user_id_foreign\` foreign key (\`user_id\`) references \`users\` (\`id\`) on delete cascade;`,
      `alter table \`domain_invitations\` add constraint \`domain_invitations_domain_id_foreign\` foreign key (\`domain_id\`) references \`organization_domains\` (\`id\`) on update cascade on delete cascade;`,
      `alter table \`domain_invitations\` add constraint \`domain_invitations_user_id_foreign\` foreign key (\`user_id\`) references \`users\` (\`id\`) on update cascade on delete cascade;`,
    ]) {
      await this.execute(statement);
    }
  }
}
