import { Migration } from '@mikro-orm/migrations';

/**
 * The receiver's answer in the delivery log (behaviour §13): a delivery keeps up to 1 KiB of the
 * body its last attempt was answered with, whether the attempt succeeded or failed; null when that
 * attempt had no answer, and for the deliveries made before.
 */
export class Migration20261129160000_delivery_response_body extends Migration {
  override name = 'Migration20261129160000_delivery_response_body';

  override up(): void {
    this.addSql(`alter table \`webhook_deliveries\` add column \`last_response_body\` text null;`);
  }
}
