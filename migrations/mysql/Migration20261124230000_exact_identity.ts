import { Migration } from '@mikro-orm/migrations';

/**
 * Identity is exact: every table gets a binary NO PAD collation, so ids and Idempotency-Keys are
 * compared byte for byte as on the embedded database, no longer case-, accent- or trailing-space-
 * insensitively as under utf8mb4's default collation (utf8mb4_general_ci on MariaDB). Whole tables,
 * not only their id columns: every column inherits the table's collation, so the entities need no
 * collation of their own (which could name only one of MariaDB's and MySQL's), a column added later
 * is binary too, and all text compares as on the embedded database. E-mail addresses are stored and
 * looked up in lower case, so they still match whatever letter case the caller sends.
 */
export class Migration20261124230000_exact_identity extends Migration {
  override name = 'Migration20261124230000_exact_identity';

  override async up(): Promise<void> {
    // Under the old collation a reference may name its row in other letters ('Alice' for 'alice'):
    // it becomes that row's exact id, or the foreign key could not be added back.
    for (const key of FOREIGN_KEYS) {
      const column = `child.\`${key.column}\``;
      this.addSql(
        `update \`${key.table}\` child join \`${key.references}\` parent on parent.id = ${column} set ${column} = parent.id where cast(${column} as binary) <> cast(parent.id as binary);`,
      );
    }
    this.convertTables(`collate ${await this.binaryNoPadCollation()}`);
  }

  /** Back to utf8mb4's default collation; fails where two ids differ only as the old one ignores. */
  override down(): void {
    this.convertTables('');
  }

  /**
   * MariaDB and MySQL refuse to change the collation of a column that a foreign key uses, and a
   * foreign key needs the same collation on both sides: the keys are dropped, then each table is
   * converted and gets its keys back in one ALTER (one copy of the table), parents first.
   */
  private convertTables(collateClause: string): void {
    for (const table of new Set(FOREIGN_KEYS.map((key) => key.table))) {
      const drops = FOREIGN_KEYS.filter((key) => key.table === table).map((key) => `drop foreign key \`${key.name}\``);
      this.addSql(`alter table \`${table}\` ${drops.join(', ')};`);
    }
    for (const table of TABLES) {
      const adds = FOREIGN_KEYS.filter((key) => key.table === table).map(
        (key) =>
          `add constraint \`${key.name}\` foreign key (\`${key.column}\`) references \`${key.references}\` (\`id\`)${key.rules}`,
      );
      this.addSql(
        `alter table \`${table}\` ${[`convert to character set utf8mb4 ${collateClause}`.trim(), ...adds].join(', ')};`,
      );
    }
  }

  /**
   * The server's binary NO PAD collation: utf8mb4_nopad_bin on MariaDB, utf8mb4_0900_bin on MySQL
   * 8. Not utf8mb4_bin: it is PAD SPACE on both, so 'alice' = 'alice '. The server is asked rather
   * than told by the driver (mariadb:// or mysql://): a migration does not see the URL, a mysql://
   * URL may reach a MariaDB server, and the collation must be one that server has.
   */
  private async binaryNoPadCollation(): Promise<string> {
    const rows = await this.execute(
      `select collation_name as name from information_schema.collations where collation_name in (?, ?)`,
      [...BINARY_NO_PAD_COLLATIONS],
    );
    const names = new Set(rows.map((row) => String(row.name)));
    const collation = BINARY_NO_PAD_COLLATIONS.find((name) => names.has(name));
    if (!collation) {
      throw new Error(`The database server has no binary NO PAD collation (${BINARY_NO_PAD_COLLATIONS.join(' or ')})`);
    }
    return collation;
  }
}

/** In order of preference: MariaDB's name first, should a MariaDB server also accept MySQL's. */
const BINARY_NO_PAD_COLLATIONS = ['utf8mb4_nopad_bin', 'utf8mb4_0900_bin'] as const;

/** Every table, each after the tables its foreign keys reference. */
const TABLES = [
  'users',
  'organizations',
  'organization_users',
  'invitations',
  'organization_events',
  'idempotency_keys',
];

/** The foreign keys between id columns, as the earlier migrations made them (all reference `id`). */
const FOREIGN_KEYS = [
  {
    name: 'organizations_created_by_foreign',
    table: 'organizations',
    column: 'created_by',
    references: 'users',
    rules: '',
  },
  {
    name: 'organization_users_organization_id_foreign',
    table: 'organization_users',
    column: 'organization_id',
    references: 'organizations',
    rules: ' on update cascade on delete cascade',
  },
  {
    name: 'organization_users_user_id_foreign',
    table: 'organization_users',
    column: 'user_id',
    references: 'users',
    rules: ' on update cascade on delete cascade',
  },
  {
    name: 'invitations_organization_id_foreign',
    table: 'invitations',
    column: 'organization_id',
    references: 'organizations',
    rules: ' on delete cascade',
  },
  {
    name: 'invitations_invited_by_foreign',
    table: 'invitations',
    column: 'invited_by',
    references: 'users',
    rules: '',
  },
];
