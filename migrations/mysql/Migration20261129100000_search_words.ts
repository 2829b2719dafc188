import { Migration } from '@mikro-orm/migrations';
import { fillSearchWords } from '../search-words.ts';

/**
 * The directory's search (behaviour §15): the folded words of users, of memberships (a copy of
 * their user's, so a search in an organization reads its own) and of organizations, each found by
 * its beginning (docs/development.md, "Search"); the member list filtered by role. The words of
 * what exists are filled before the foreign keys are added.
 */
export class Migration20261129100000_search_words extends Migration {
  override name = 'Migration20261129100000_search_words';

  override async up(): Promise<void> {
    // The new tables compare text as the others do (Migration20261124230000_exact_identity).
    const [row] = await this.execute(
      `select table_collation as name from information_schema.tables where table_schema = database() and table_name = 'organizations'`,
    );
    const table = `default character set utf8mb4 collate ${String(row!.name)} engine = InnoDB`;
    for (const statement of [
      `create table \`organization_words\` (\`organization_id\` varchar(36) not null, \`word\` varchar(128) not null, primary key (\`organization_id\`, \`word\`)) ${table};`,
      `alter table \`organization_words\` add index \`organization_words_organization_id_index\` (\`organization_id\`);`,
      `alter table \`organization_words\` add index \`organization_words_search_idx\` (\`word\`, \`organization_id\`);`,
      `create table \`member_words\` (\`organization_id\` varchar(36) not null, \`word\` varchar(128) not null, \`user_id\` varchar(128) not null, primary key (\`organization_id\`, \`word\`, \`user_id\`)) ${table};`,
      `alter table \`member_words\` add index \`member_words_organization_id_index\` (\`organization_id\`);`,
      `alter table \`member_words\` add index \`member_words_user_id_index\` (\`user_id\`);`,
      `alter table \`member_words\` add index \`member_words_membership_idx\` (\`organization_id\`, \`user_id\`);`,
      `create table \`user_words\` (\`user_id\` varchar(128) not null, \`word\` varchar(128) not null, primary key (\`user_id\`, \`word\`)) ${table};`,
      `alter table \`user_words\` add index \`user_words_user_id_index\` (\`user_id\`);`,
      `alter table \`user_words\` add index \`user_words_search_idx\` (\`word\`, \`user_id\`);`,
      `alter table \`organization_users\` add index \`organization_users_role_idx\` (\`organization_id\`, \`role\`, \`created_at\`, \`user_id\`);`,
    ]) {
      await this.execute(statement);
    }
    await fillSearchWords(this);
    for (const statement of [
      `alter table \`organization_words\` add constraint \`organization_words_organization_id_foreign\` foreign key (\`organization_id\`) references \`organizations\` (\`id\`) on delete cascade;`,
      `alter table \`member_words\` add constraint \`member_words_organization_id_foreign\` foreign key (\`organization_id\`) references \`organizations\` (\`id\`) on delete cascade;`,
      `alter table \`member_words\` add constraint \`member_words_user_id_foreign\` foreign key (\`user_id\`) references \`users\` (\`id\`) on delete cascade;`,
      `alter table \`user_words\` add constraint \`user_words_user_id_foreign\` foreign key (\`user_id\`) references \`users\` (\`id\`) on delete cascade;`,
    ]) {
      await this.execute(statement);
    }
  }
}
