import { Migration } from '@mikro-orm/migrations';

/**
 * An index on `directory_users.user_id` alone: the deletion of a person's record unlinks their
 * directory users in every organization (behaviour §15) by that column, which no index began with.
 */
export class Migration20261201090000_directory_user_links extends Migration {
  override name = 'Migration20261201090000_directory_user_links';

  override up(): void {
    this.addSql(`create index \`directory_users_user_id_idx\` on \`directory_users\` (\`user_id\`);`);
  }
}
