import { Migration } from '@mikro-orm/migrations';

export class Migration20261122212048_initial extends Migration {
  override name = 'Migration20261122212048_initial';

  override up(): void | Promise<void> {
    this.addSql(
      `create table \`users\` (\`id\` text not null primary key, \`first_name\` text not null, \`last_name\` text not null, \`email\` text not null, \`created_at\` datetime not null, \`updated_at\` datetime not null);`,
    );
    this.addSql(`create unique index \`users_email_unique\` on \`users\` (\`email\`);`);

    this.addSql(
      `create table \`organizations\` (\`id\` text not null primary key, \`name\` text not null, \`description\` text not null, \`created_by\` text not null, \`created_at\` datetime not null, constraint \`organizations_created_by_foreign\` foreign key (\`created_by\`) references \`users\` (\`id\`));`,
    );
    this.addSql(`create index \`organizations_created_by_index\` on \`organizations\` (\`created_by\`);`);

    this.addSql(
      `create table \`organization_users\` (\`organization_id\` text not null, \`user_id\` text not null, \`role\` text check (\`role\` in ('owner', 'admin', 'member')) not null, \`created_at\` datetime not null, \`updated_at\` datetime not null, primary key (\`organization_id\`, \`user_id\`), constraint \`organization_users_organization_id_foreign\` foreign key (\`organization_id\`) references \`organizations\` (\`id\`) on update cascade on delete cascade, constraint \`organization_users_user_id_foreign\` foreign key (\`user_id\`) references \`users\` (\`id\`) on update cascade on delete cascade);`,
    );
    this.addSql(
      `create index \`organization_users_organization_id_index\` on \`organization_users\` (\`organization_id\`);`,
    );
    this.addSql(`create index \`organization_users_user_id_index\` on \`organization_users\` (\`user_id\`);`);
    this.addSql(
      `create index \`organization_users_list_idx\` on \`organization_users\` (\`organization_id\`, \`created_at\`, \`user_id\`);`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists \`organization_users\`;`);
    this.addSql(`drop table if exists \`organizations\`;`);
    this.addSql(`drop table if exists \`users\`;`);
  }
}
