import { Migration } from '@mikro-orm/migrations';
import { refoldSearchWords } from '../search-words.ts';

/**
 * The search's words folded as Unicode's full case folding folds case (behaviour §15): "Straße"
 * is found by `strasse`, "Κασσάνδρα" by `ΚΑΣ`. Only text outside ASCII folds differently, so only
 * its words are made again (migrations/search-words.ts): a column holds such a character when it
 * is longer in bytes (UTF-8) than in characters.
 */
export class Migration20261201120000_case_folded_words extends Migration {
  override name = 'Migration20261201120000_case_folded_words';

  override async up(): Promise<void> {
    await refoldSearchWords(this, (column) => `length(\`${column}\`) <> char_length(\`${column}\`)`);
  }
}
