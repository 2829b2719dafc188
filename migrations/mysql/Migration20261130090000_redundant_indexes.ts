import { Migration } from '@mikro-orm/migrations';

/**
 * Drops the index MikroORM had given each foreign key whose column the primary key or another index
 * already begins with (entities.ts): the key is checked through that one, and the copy was one more
 * write on every insert and delete, most of all in the search's word tables.
 */
export class Migration20261130090000_redundant_indexes extends Migration {
  override name = 'Migration20261130090000_redundant_indexes';

  override up(): void {
    this.addSql(`alter table \`api_keys\` drop index \`api_keys_organization_id_index\`;`);
    this.addSql(`alter table \`directory_group_members\` drop index \`directory_group_members_team_id_index\`;`);
    this.addSql(`alter table \`directory_groups\` drop index \`directory_groups_organization_id_index\`;`);
    this.addSql(`alter table \`directory_groups\` drop index \`directory_groups_team_id_index\`;`);
    this.addSql(`alter table \`directory_users\` drop index \`directory_users_organization_id_index\`;`);
    this.addSql(`alter table \`domain_invitations\` drop index \`domain_invitations_domain_id_index\`;`);
    this.addSql(`alter table \`invitations\` drop index \`invitations_organization_id_index\`;`);
    this.addSql(`alter table \`join_requests\` drop index \`join_requests_organization_id_index\`;`);
    this.addSql(`alter table \`join_requests\` drop index \`join_requests_user_id_index\`;`);
    this.addSql(`alter table \`member_words\` drop index \`member_words_organization_id_index\`;`);
    this.addSql(`alter table \`organization_domains\` drop index \`organization_domains_organization_id_index\`;`);
    this.addSql(`alter table \`organization_roles\` drop index \`organization_roles_organization_id_index\`;`);
    this.addSql(`alter table \`organization_users\` drop index \`organization_users_organization_id_index\`;`);
    this.addSql(`alter table \`organization_words\` drop index \`organization_words_organization_id_index\`;`);
    this.addSql(`alter table \`team_members\` drop index \`team_members_team_id_index\`;`);
    this.addSql(`alter table \`team_roles\` drop index \`team_roles_team_id_index\`;`);
    this.addSql(`alter table \`teams\` drop index \`teams_organization_id_index\`;`);
    this.addSql(`alter table \`user_words\` drop index \`user_words_user_id_index\`;`);
    this.addSql(`alter table \`webhook_cursors\` drop index \`webhook_cursors_organization_id_index\`;`);
    this.addSql(`alter table \`webhook_deliveries\` drop index \`webhook_deliveries_webhook_id_index\`;`);
    this.addSql(`alter table \`webhooks\` drop index \`webhooks_organization_id_index\`;`);
  }
}
