import { Migration } from '@mikro-orm/migrations';

/**
 * Drops the index MikroORM had given each foreign key whose column the primary key or another index
 * already begins with (entities.ts): the key is checked through that one, and the copy was one more
 * write on every insert and delete, most of all in the search's word tables.
 */
export class Migration20261130090000_redundant_indexes extends Migration {
  override name = 'Migration20261130090000_redundant_indexes';

  override up(): void {
    this.addSql(`drop index \`api_keys_organization_id_index\`;`);
    this.addSql(`drop index \`directory_group_members_team_id_index\`;`);
    this.addSql(`drop index \`directory_groups_organization_id_index\`;`);
    this.addSql(`drop index \`directory_groups_team_id_index\`;`);
    this.addSql(`drop index \`directory_users_organization_id_index\`;`);
    this.addSql(`drop index \`domain_invitations_domain_id_index\`;`);
    this.addSql(`drop index \`invitations_organization_id_index\`;`);
    this.addSql(`drop index \`join_requests_organization_id_index\`;`);
    this.addSql(`drop index \`join_requests_user_id_index\`;`);
    this.addSql(`drop index \`member_words_organization_id_index\`;`);
    this.addSql(`drop index \`organization_domains_organization_id_index\`;`);
    this.addSql(`drop index \`organization_roles_organization_id_index\`;`);
    this.addSql(`drop index \`organization_users_organization_id_index\`;`);
    this.addSql(`drop index \`organization_words_organization_id_index\`;`);
    this.addSql(`drop index \`team_members_team_id_index\`;`);
    this.addSql(`drop index \`team_roles_team_id_index\`;`);
    this.addSql(`drop index \`teams_organization_id_index\`;`);
    this.addSql(`drop index \`user_words_user_id_index\`;`);
    this.addSql(`drop index \`webhook_cursors_organization_id_index\`;`);
    this.addSql(`drop index \`webhook_deliveries_webhook_id_index\`;`);
    this.addSql(`drop index \`webhooks_organization_id_index\`;`);
  }
}
