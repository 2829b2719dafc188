import { Migration } from '@mikro-orm/migrations';
import { recomputeTeamNameKeysWhereNamesHold } from '../team-name-keys.ts';

/**
 * Team names compared with their case folded as Unicode's full case folding does (behaviour
 * §4.4): "STRAẞE" is now the name "Strasse" is. Only a name holding the capital sharp s compares
 * otherwise than before (tests/unit/text.test.ts checks it over every code point), so only the
 * keys of its organization's teams are made again, a hundred organizations at a time
 * (migrations/team-name-keys.ts), the older of two names now one keeping the key.
 */
export class Migration20261201140000_case_folded_team_names extends Migration {
  override name = 'Migration20261201140000_case_folded_team_names';

  override async up(): Promise<void> {
    await recomputeTeamNameKeysWhereNamesHold(this, '\u1e9e');
  }
}
