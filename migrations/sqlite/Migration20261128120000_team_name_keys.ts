import { Migration } from '@mikro-orm/migrations';
import { recomputeTeamNameKeys } from '../team-name-keys.ts';

/** Team name keys that ignore width, composition and invisible characters too (migrations/team-name-keys.ts). */
export class Migration20261128120000_team_name_keys extends Migration {
  override name = 'Migration20261128120000_team_name_keys';

  override async up(): Promise<void> {
    await recomputeTeamNameKeys(this);
  }
}
