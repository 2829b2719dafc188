import { Migration } from '@mikro-orm/migrations';

/**
 * Webhooks (behaviour §13): an organization's endpoints, the deliveries of its events to them, and
 * how far each organization's event log has been handed out to its endpoints.
 */
export class Migration20261126120000_webhooks extends Migration {
  override name = 'Migration20261126120000_webhooks';

  override up(): void {
    this.addSql(
      `create table \`webhooks\` (\`id\` text not null primary key, \`organization_id\` text not null, \`url\` text not null, \`event_types\` text not null, \`description\` text not null, \`secret\` text not null, \`previous_secret\` text null, \`previous_secret_expires_at\` datetime null, \`enabled\` integer not null, \`disabled_reason\` text null, \`failing_since\` datetime null, \`created_event_id\` text not null, \`created_at\` datetime not null, \`updated_at\` datetime not null, constraint \`webhooks_organization_id_foreign\` foreign key (\`organization_id\`) references \`organizations\` (\`id\`) on delete cascade);`,
    );
    this.addSql(`create index \`webhooks_organization_id_index\` on \`webhooks\` (\`organization_id\`);`);
    this.addSql(`create index \`webhooks_list_idx\` on \`webhooks\` (\`organization_id\`, \`created_at\`, \`id\`);`);
    this.addSql(
      `create table \`webhook_cursors\` (\`organization_id\` text not null primary key, \`last_event_id\` text not null, constraint \`webhook_cursors_organization_id_foreign\` foreign key (\`organization_id\`) references \`organizations\` (\`id\`) on update cascade on delete cascade);`,
    );
    this.addSql(`create index \`webhook_cursors_organization_id_index\` on \`webhook_cursors\` (\`organization_id\`);`);
    this.addSql(
      `create table \`webhook_deliveries\` (\`id\` text not null primary key, \`webhook_id\` text not null, \`organization_id\` text not null, \`event_id\` text not null, \`event_type\` text not null, \`status\` text check (\`status\` in ('pending', 'succeeded', 'failed')) not null, \`attempts\` integer not null, \`last_status_code\` integer null, \`last_error\` text null, \`next_attempt_at\` datetime null, \`claim_token\` text null, \`created_at\` datetime not null, \`updated_at\` datetime not null, constraint \`webhook_deliveries_webhook_id_foreign\` foreign key (\`webhook_id\`) references \`webhooks\` (\`id\`) on delete cascade);`,
    );
    this.addSql(`create index \`webhook_deliveries_webhook_id_index\` on \`webhook_deliveries\` (\`webhook_id\`);`);
    this.addSql(
      `create index \`webhook_deliveries_due_idx\` on \`webhook_deliveries\` (\`status\`, \`next_attempt_at\`);`,
    );
    this.addSql(
      `create index \`webhook_deliveries_list_idx\` on \`webhook_deliveries\` (\`webhook_id\`, \`created_at\`, \`id\`);`,
    );
    this.addSql(
      `create unique index \`webhook_deliveries_event_unique\` on \`webhook_deliveries\` (\`webhook_id\`, \`event_id\`);`,
    );
  }
}
