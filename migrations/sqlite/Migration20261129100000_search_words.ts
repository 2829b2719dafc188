import { Migration } from '@mikro-orm/migrations';
import { fillSearchWords } from '../search-words.ts';

/**
 * The directory's search (behaviour §15): the folded words of users, of memberships (a copy of
 * their user's, so a search in an organization reads its own) and of organizations, each found by
 * its beginning (docs/development.md, "Search"); the member list filtered by role. The words of
 * what exists are filled once the tables are made.
 */
export class Migration20261129100000_search_words extends Migration {
  override name = 'Migration20261129100000_search_words';

  override async up(): Promise<void> {
    for (const statement of [
      `create table \`organization_words\` (\`organization_id\` text not null, \`word\` text not null, primary key (\`organization_id\`, \`word\`), constraint \`organization_words_organization_id_foreign\` foreign key (\`organization_id\`) references \`organizations\` (\`id\`) on delete cascade);`,
      `create index \`organization_words_organization_id_index\` on \`organization_words\` (\`organization_id\`);`,
      `create index \`organization_words_search_idx\` on \`organization_words\` (\`word\`, \`organization_id\`);`,
      `create table \`member_words\` (\`organization_id\` text not null, \`word\` text not null, \`user_id\` text not null, primary key (\`organization_id\`, \`word\`, \`user_id\`), constraint \`member_words_organization_id_foreign\` foreign key (\`organization_id\`) references \`organizations\` (\`id\`) on delete cascade, constraint \`member_words_user_id_foreign\` foreign key (\`user_id\`) references \`users\` (\`id\`) on delete cascade);`,
      `create index \`member_words_organization_id_index\` on \`member_words\` (\`organization_id\`);`,
      `create index \`member_words_user_id_index\` on \`member_words\` (\`user_id\`);`,
      `create index \`member_words_membership_idx\` on \`member_words\` (\`organization_id\`, \`user_id\`);`,
      `create table \`user_words\` (\`user_id\` text not null, \`word\` text not null, primary key (\`user_id\`, \`word\`), constraint \`user_words_user_id_foreign\` foreign key (\`user_id\`) references \`users\` (\`id\`) on delete cascade);`,
      `create index \`user_words_user_id_index\` on \`user_words\` (\`user_id\`);`,
      `create index \`user_words_search_idx\` on \`user_words\` (\`word\`, \`user_id\`);`,
      `create index \`organization_users_role_idx\` on \`organization_users\` (\`organization_id\`, \`role\`, \`created_at\`, \`user_id\`);`,
    ]) {
      await this.execute(statement);
    }
    await fillSearchWords(this);
  }
}
