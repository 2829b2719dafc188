import { Migration } from '@mikro-orm/migrations';

/**
 * Verified domains and joining (behaviour §17): an organization's e-mail domains, each verified at
 * most once across organizations (a unique index on `verified_domain`, null while pending); people's
 * join requests; and the automatic invitations domains made, each once per person and domain.
 */
export class Migration20261129120000_domains_and_joining extends Migration {
  override name = 'Migration20261129120000_domains_and_joining';

  override async up(): Promise<void> {
    for (const statement of [
      `create table \`organization_domains\` (\`id\` text not null primary key, \`organization_id\` text not null, \`domain\` text not null, \`verification_value\` text not null, \`enrollment\` text check (\`enrollment\` in ('manual', 'suggestion', 'automatic_invitation', 'automatic')) not null, \`default_role\` text not null, \`created_at\` datetime not null, \`verified_at\` datetime null, \`verified_domain\` text null, constraint \`organization_domains_organization_id_foreign\` foreign key (\`organization_id\`) references \`organizations\` (\`id\`) on delete cascade);`,
      `create index \`organization_domains_organization_id_index\` on \`organization_domains\` (\`organization_id\`);`,
      `create unique index \`organization_domains_verified_domain_unique\` on \`organization_domains\` (\`verified_domain\`);`,
      `create index \`organization_domains_list_idx\` on \`organization_domains\` (\`organization_id\`, \`created_at\`, \`id\`);`,
      `create unique index \`organization_domains_organization_domain_unique\` on \`organization_domains\` (\`organization_id\`, \`domain\`);`,
      `create table \`join_requests\` (\`id\` text not null primary key, \`organization_id\` text not null, \`user_id\` text not null, \`role\` text not null, \`status\` text check (\`status\` in ('pending', 'approved', 'rejected', 'withdrawn')) not null, \`created_at\` datetime not null, \`updated_at\` datetime not null, constraint \`join_requests_organization_id_foreign\` foreign key (\`organization_id\`) references \`organizations\` (\`id\`) on delete cascade, constraint \`join_requests_user_id_foreign\` foreign key (\`user_id\`) references \`users\` (\`id\`) on delete cascade);`,
      `create index \`join_requests_organization_id_index\` on \`join_requests\` (\`organization_id\`);`,
      `create index \`join_requests_user_id_index\` on \`join_requests\` (\`user_id\`);`,
      `create index \`join_requests_organization_status_idx\` on \`join_requests\` (\`organization_id\`, \`status\`, \`created_at\`, \`id\`);`,
      `create index \`join_requests_user_idx\` on \`join_requests\` (\`user_id\`, \`created_at\`);`,
      `create table \`domain_invitations\` (\`domain_id\` text not null, \`user_id\` text not null, \`created_at\` datetime not null, primary key (\`domain_id\`, \`user_id\`), constraint \`domain_invitations_domain_id_foreign\` foreign key (\`domain_id\`) references \`organization_domains\` (\`id\`) on update cascade on delete cascade, constraint \`domain_invitations_user_id_foreign\` foreign key (\`user_id\`) references \`users\` (\`id\`) on update cascade on delete cascade);`,
      `create index \`domain_invitations_domain_id_index\` on \`domain_invitations\` (\`domain_id\`);`,
      `create index \`domain_invitations_user_id_index\` on \`domain_invitations\` (\`user_id\`);`,
    ]) {
      await this.execute(statement);
    }
  }
}
