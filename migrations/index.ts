/**
 * The migrations of each SQL dialect, listed explicitly so start-up globs no files. MySQL and
 * MariaDB share `mysql/`; the embedded libSQL database uses `sqlite/`. A schema change adds one
 * migration to each folder and to each list; a test checks that the migrations match the entities.
 * A change one dialect alone needs goes to that dialect only: the binary collation of the MySQL
 * tables (SQLite compares text byte for byte already). A table a later MySQL migration creates
 * needs the collation that migration picks (tests/migrations.test.ts checks every column's).
 */
import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122212048_initial as MysqlInitial } from './mysql/Migration20261122212048_initial.ts';
import { Migration20261123170000_lifecycle_events_idempotency as MysqlLifecycle } from './mysql/Migration20261123170000_lifecycle_events_idempotency.ts';
import { Migration20261124230000_exact_identity as MysqlExactIdentity } from './mysql/Migration20261124230000_exact_identity.ts';
import { Migration20261125120000_roles_and_expiry as MysqlRolesAndExpiry } from './mysql/Migration20261125120000_roles_and_expiry.ts';
import { Migration20261126090000_teams as MysqlTeams } from './mysql/Migration20261126090000_teams.ts';
import { Migration20261126120000_webhooks as MysqlWebhooks } from './mysql/Migration20261126120000_webhooks.ts';
import { Migration20261128120000_team_name_keys as MysqlTeamNameKeys } from './mysql/Migration20261128120000_team_name_keys.ts';
import { Migration20261129090000_machines_and_directory as MysqlMachinesAndDirectory } from './mysql/Migration20261129090000_machines_and_directory.ts';
import { Migration20261129100000_search_words as MysqlSearchWords } from './mysql/Migration20261129100000_search_words.ts';
import { Migration20261129120000_domains_and_joining as MysqlDomainsAndJoining } from './mysql/Migration20261129120000_domains_and_joining.ts';
import { Migration20261129130000_scim as MysqlScim } from './mysql/Migration20261129130000_scim.ts';
import { Migration20261129150000_account_deletion as MysqlAccountDeletion } from './mysql/Migration20261129150000_account_deletion.ts';
import { Migration20261129160000_delivery_response_body as MysqlDeliveryResponseBody } from './mysql/Migration20261129160000_delivery_response_body.ts';
import { Migration20261130090000_redundant_indexes as MysqlRedundantIndexes } from './mysql/Migration20261130090000_redundant_indexes.ts';
import { Migration20261201090000_directory_user_links as MysqlDirectoryUserLinks } from './mysql/Migration20261201090000_directory_user_links.ts';
import { Migration20261201120000_case_folded_words as MysqlCaseFoldedWords } from './mysql/Migration20261201120000_case_folded_words.ts';
import { Migration20261201140000_case_folded_team_names as MysqlCaseFoldedTeamNames } from './mysql/Migration20261201140000_case_folded_team_names.ts';
import { Migration20261122212048_initial as SqliteInitial } from './sqlite/Migration20261122212048_initial.ts';
import { Migration20261123170000_lifecycle_events_idempotency as SqliteLifecycle } from './sqlite/Migration20261123170000_lifecycle_events_idempotency.ts';
import { Migration20261125120000_roles_and_expiry as SqliteRolesAndExpiry } from './sqlite/Migration20261125120000_roles_and_expiry.ts';
import { Migration20261126090000_teams as SqliteTeams } from './sqlite/Migration20261126090000_teams.ts';
import { Migration20261126120000_webhooks as SqliteWebhooks } from './sqlite/Migration20261126120000_webhooks.ts';
import { Migration20261128120000_team_name_keys as SqliteTeamNameKeys } from './sqlite/Migration20261128120000_team_name_keys.ts';
import { Migration20261129090000_machines_and_directory as SqliteMachinesAndDirectory } from './sqlite/Migration20261129090000_machines_and_directory.ts';
import { Migration20261129100000_search_words as SqliteSearchWords } from './sqlite/Migration20261129100000_search_words.ts';
import { Migration20261129120000_domains_and_joining as SqliteDomainsAndJoining } from './sqlite/Migration20261129120000_domains_and_joining.ts';
import { Migration20261129130000_scim as SqliteScim } from './sqlite/Migration20261129130000_scim.ts';
import { Migration20261129150000_account_deletion as SqliteAccountDeletion } from './sqlite/Migration20261129150000_account_deletion.ts';
import { Migration20261129160000_delivery_response_body as SqliteDeliveryResponseBody } from './sqlite/Migration20261129160000_delivery_response_body.ts';
import { Migration20261130090000_redundant_indexes as SqliteRedundantIndexes } from './sqlite/Migration20261130090000_redundant_indexes.ts';
import { Migration20261201090000_directory_user_links as SqliteDirectoryUserLinks } from './sqlite/Migration20261201090000_directory_user_links.ts';
import { Migration20261201120000_case_folded_words as SqliteCaseFoldedWords } from './sqlite/Migration20261201120000_case_folded_words.ts';
import { Migration20261201140000_case_folded_team_names as SqliteCaseFoldedTeamNames } from './sqlite/Migration20261201140000_case_folded_team_names.ts';

export const mysqlMigrations: MigrationObject[] = [
  { name: 'Migration20261122212048_initial', class: MysqlInitial },
  { name: 'Migration20261123170000_lifecycle_events_idempotency', class: MysqlLifecycle },
  { name: 'Migration20261124230000_exact_identity', class: MysqlExactIdentity },
  { name: 'Migration20261125120000_roles_and_expiry', class: MysqlRolesAndExpiry },
  { name: 'Migration20261126090000_teams', class: MysqlTeams },
  { name: 'Migration20261126120000_webhooks', class: MysqlWebhooks },
  { name: 'Migration20261128120000_team_name_keys', class: MysqlTeamNameKeys },
  { name: 'Migration20261129090000_machines_and_directory', class: MysqlMachinesAndDirectory },
  { name: 'Migration20261129100000_search_words', class: MysqlSearchWords },
  { name: 'Migration20261129120000_domains_and_joining', class: MysqlDomainsAndJoining },
  { name: 'Migration20261129130000_scim', class: MysqlScim },
  { name: 'Migration20261129150000_account_deletion', class: MysqlAccountDeletion },
  { name: 'Migration20261129160000_delivery_response_body', class: MysqlDeliveryResponseBody },
  { name: 'Migration20261130090000_redundant_indexes', class: MysqlRedundantIndexes },
  { name: 'Migration20261201090000_directory_user_links', class: MysqlDirectoryUserLinks },
  { name: 'Migration20261201120000_case_folded_words', class: MysqlCaseFoldedWords },
  { name: 'Migration20261201140000_case_folded_team_names', class: MysqlCaseFoldedTeamNames },
];
export const sqliteMigrations: MigrationObject[] = [
  { name: 'Migration20261122212048_initial', class: SqliteInitial },
  { name: 'Migration20261123170000_lifecycle_events_idempotency', class: SqliteLifecycle },
  { name: 'Migration20261125120000_roles_and_expiry', class: SqliteRolesAndExpiry },
  { name: 'Migration20261126090000_teams', class: SqliteTeams },
  { name: 'Migration20261126120000_webhooks', class: SqliteWebhooks },
  { name: 'Migration20261128120000_team_name_keys', class: SqliteTeamNameKeys },
  { name: 'Migration20261129090000_machines_and_directory', class: SqliteMachinesAndDirectory },
  { name: 'Migration20261129100000_search_words', class: SqliteSearchWords },
  { name: 'Migration20261129120000_domains_and_joining', class: SqliteDomainsAndJoining },
  { name: 'Migration20261129130000_scim', class: SqliteScim },
  { name: 'Migration20261129150000_account_deletion', class: SqliteAccountDeletion },
  { name: 'Migration20261129160000_delivery_response_body', class: SqliteDeliveryResponseBody },
  { name: 'Migration20261130090000_redundant_indexes', class: SqliteRedundantIndexes },
  { name: 'Migration20261201090000_directory_user_links', class: SqliteDirectoryUserLinks },
  { name: 'Migration20261201120000_case_folded_words', class: SqliteCaseFoldedWords },
  { name: 'Migration20261201140000_case_folded_team_names', class: SqliteCaseFoldedTeamNames },
];
