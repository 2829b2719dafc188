import { Migration } from '@mikro-orm/migrations';

/**
 * An index on `directory_users.user_id` alone: the deletion of a person's record unlinks their
 * directory users in every organization (behaviour §15) by that column, which no index began with.
 * Without it the update read the whole table and, on MariaDB, locked every row it read until its
 * transaction ended, holding up every organization's provisioning.
 */
export class Migration20261201090000_directory_user_links extends Migration {
  override name = 'Migration20261201090000_directory_user_links';

  override up(): void {
    this.addSql(`alter table \`directory_users\` add index \`directory_users_user_id_idx\` (\`user_id\`);`);
  }
}
