import { Migration } from '@mikro-orm/migrations';

/**
 * Webhooks (behaviour §13): an organization's endpoints, the deliveries of its events to them, and
 * how far each organization's event log has been handed out to its endpoints.
 */
export class Migration20261126120000_webhooks extends Migration {
  override name = 'Migration20261126120000_webhooks';

  override async up(): Promise<void> {
    // The new tables compare text as the others do: their binary NO PAD collation, whichever name
    // this server has for it (Migration20261124230000_exact_identity).
    const [row] = await this.execute(
      `select table_collation as name from information_schema.tables where table_schema = database() and table_name = 'organizations'`,
    );
    const table = `default character set utf8mb4 collate ${String(row!.name)} engine = InnoDB`;
    this.addSql(
      `create table \`webhooks\` (\`id\` varchar(36) not null, \`organization_id\` varchar(36) not null, \`url\` varchar(2048) not null, \`event_types\` text not null, \`description\` varchar(500) not null, \`secret\` varchar(64) not null, \`previous_secret\` varchar(64) null, \`previous_secret_expires_at\` datetime(3) null, \`enabled\` int not null, \`disabled_reason\` varchar(200) null, \`failing_since\` datetime(3) null, \`created_event_id\` varchar(36) not null, \`created_at\` datetime(3) not null, \`updated_at\` datetime(3) not null, primary key (\`id\`)) ${table};`,
    );
    this.addSql(`alter table \`webhooks\` add index \`webhooks_organization_id_index\` (\`organization_id\`);`);
    this.addSql(
      `alter table \`webhooks\` add index \`webhooks_list_idx\` (\`organization_id\`, \`created_at\`, \`id\`);`,
    );
    this.addSql(
      `create table \`webhook_cursors\` (\`organization_id\` varchar(36) not null, \`last_event_id\` varchar(36) not null, primary key (\`organization_id\`)) ${table};`,
    );
    this.addSql(
      `alter table \`webhook_cursors\` add index \`webhook_cursors_organization_id_index\` (\`organization_id\`);`,
    );
    this.addSql(
      `create table \`webhook_deliveries\` (\`id\` varchar(36) not null, \`webhook_id\` varchar(36) not null, \`organization_id\` varchar(36) not null, \`event_id\` varchar(36) not null, \`event_type\` varchar(32) not null, \`status\` enum('pending','succeeded','failed') not null, \`attempts\` int not null, \`last_status_code\` int null, \`last_error\` varchar(1200) null, \`next_attempt_at\` datetime(3) null, \`claim_token\` varchar(36) null, \`created_at\` datetime(3) not null, \`updated_at\` datetime(3) not null, primary key (\`id\`)) ${table};`,
    );
    this.addSql(
      `alter table \`webhook_deliveries\` add index \`webhook_deliveries_webhook_id_index\` (\`webhook_id\`);`,
    );
    this.addSql(
      `alter table \`webhook_deliveries\` add index \`webhook_deliveries_due_idx\` (\`status\`, \`next_attempt_at\`);`,
    );
    this.addSql(
      `alter table \`webhook_deliveries\` add index \`webhook_deliveries_list_idx\` (\`webhook_id\`, \`created_at\`, \`id\`);`,
    );
    this.addSql(
      `alter table \`webhook_deliveries\` add unique \`webhook_deliveries_event_unique\` (\`webhook_id\`, \`event_id\`);`,
    );
    this.addSql(
      `alter table \`webhooks\` add constraint \`webhooks_organization_id_foreign\` foreign key (\`organization_id\`) references \`organizations\` (\`id\`) on delete cascade;`,
    );
    this.addSql(
      `alter table \`webhook_cursors\` add constraint \`webhook_cursors_organization_id_foreign\` foreign key (\`organization_id\`) references \`organizations\` (\`id\`) on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table \`webhook_deliveries\` add constraint \`webhook_deliveries_webhook_id_foreign\` foreign key (\`webhook_id\`) references \`webhooks\` (\`id\`) on delete cascade;`,
    );
  }

  override down(): void {
    this.addSql(`drop table \`webhook_deliveries\`;`);
    this.addSql(`drop table \`webhook_cursors\`;`);
    this.addSql(`drop table \`webhooks\`;`);
  }
}
