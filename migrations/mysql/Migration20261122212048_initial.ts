import { Migration } from '@mikro-orm/migrations';

export class Migration20261122212048_initial extends Migration {
  override name = 'Migration20261122212048_initial';

  override up(): void | Promise<void> {
    this.addSql(
      `create table \`users\` (\`id\` varchar(128) not null, \`first_name\` varchar(100) not null, \`last_name\` varchar(100) not null, \`email\` varchar(254) not null, \`created_at\` datetime(3) not null, \`updated_at\` datetime(3) not null, primary key (\`id\`)) default character set utf8mb4 engine = InnoDB;`,
    );
    this.addSql(`alter table \`users\` add unique \`users_email_unique\` (\`email\`);`);

    this.addSql(
      `create table \`organizations\` (\`id\` varchar(36) not null, \`name\` varchar(100) not null, \`description\` varchar(1000) not null, \`created_by\` varchar(128) not null, \`created_at\` datetime(3) not null, primary key (\`id\`)) default character set utf8mb4 engine = InnoDB;`,
    );
    this.addSql(`alter table \`organizations\` add index \`organizations_created_by_index\` (\`created_by\`);`);

    this.addSql(
      `create table \`organization_users\` (\`organization_id\` varchar(36) not null, \`user_id\` varchar(128) not null, \`role\` enum('owner','admin','member') not null, \`created_at\` datetime(3) not null, \`updated_at\` datetime(3) not null, primary key (\`organization_id\`, \`user_id\`)) default character set utf8mb4 engine = InnoDB;`,
    );
    this.addSql(
      `alter table \`organization_users\` add index \`organization_users_organization_id_index\` (\`organization_id\`);`,
    );
    this.addSql(`alter table \`organization_users\` add index \`organization_users_user_id_index\` (\`user_id\`);`);
    this.addSql(
      `alter table \`organization_users\` add index \`organization_users_list_idx\` (\`organization_id\`, \`created_at\`, \`user_id\`);`,
    );

    this.addSql(
      `alter table \`organizations\` add constraint \`organizations_created_by_foreign\` foreign key (\`created_by\`) references \`users\` (\`id\`);`,
    );

    this.addSql(
      `alter table \`organization_users\` add constraint \`organization_users_organization_id_foreign\` foreign key (\`organization_id\`) references \`organizations\` (\`id\`) on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table \`organization_users\` add constraint \`organization_users_user_id_foreign\` foreign key (\`user_id\`) references \`users\` (\`id\`) on update cascade on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table \`organizations\` drop foreign key \`organizations_created_by_foreign\`;`);
    this.addSql(`alter table \`organization_users\` drop foreign key \`organization_users_user_id_foreign\`;`);
    this.addSql(`alter table \`organization_users\` drop foreign key \`organization_users_organization_id_foreign\`;`);

    this.addSql(`drop table if exists \`users\`;`);
    this.addSql(`drop table if exists \`organizations\`;`);
    this.addSql(`drop table if exists \`organization_users\`;`);
  }
}
