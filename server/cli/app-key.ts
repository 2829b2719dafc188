/**
 * `npm run app-key -- create --name NAME | list | revoke --id ID`: the application's keys
 * (behaviour §16), made and revoked by the operator against DATABASE_URL, on the machine that runs
 * the service. `create` prints the secret once; the database keeps only its SHA-256. Wrong options
 * end with one line and exit code 2; `--help` prints the usage.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { nameText } from '../../shared/text.ts';
import { secretHashOf } from '../platform/auth/tokens.ts';
import { readSettings, type Settings } from '../platform/config.ts';
import { newId } from '../platform/database/ids.ts';
import { migrate, openDatabase, pingDatabase, type Orm } from '../platform/database/orm.ts';
import { toDbTimestamp, type Database, type Dialect } from '../platform/database/schema.ts';
import { isoTimestamp, isoTimestampOrNull } from '../platform/database/timestamps.ts';
import { newKeySecret } from '../modules/api-keys/api-keys.service.ts';
import { exitWithFailure } from './failures.ts';

const USAGE = `Usage: npm run -s app-key -- create --name NAME
       npm run -s app-key -- list
       npm run -s app-key -- revoke --id KEY_ID

The application's own keys, against the database of DATABASE_URL. An application key acts in
every organization with every permission (behaviour §16).

  create --name NAME   makes a key and prints its secret (sak_…), shown this once
  list                 one line per key: id, name, prefix, created, last used, revoked
  revoke --id KEY_ID   refuses the key from now on, on every instance
  --help               this text`;

function usageError(message: string): never {
  console.error(`npm run app-key: ${message} (npm run app-key -- --help shows the usage)`);
  process.exit(2);
}

function readCommand() {
  try {
    const { values, positionals } = parseArgs({
      allowPositionals: true,
      options: { name: { type: 'string' }, id: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
    return { ...values, command: positionals[0], extra: positionals.slice(1) };
  } catch (error) {
    // Node's messages for unknown options, missing values and stray arguments are one line each.
    return usageError((error as Error).message);
  }
}

/** How much of a secret a key shows as its prefix: `sak_` and eight characters. */
const PREFIX_LENGTH = 12;

/** The key's name as stored, or a usage error: checked before the database is opened. */
function validName(name: string): string {
  const parsed = nameText(100).safeParse(name);
  if (!parsed.success) usageError(`--name must be a name of 1 to 100 characters (${parsed.error.issues[0]!.message})`);
  return parsed.data;
}

/** The key id, or a usage error: checked before the database is opened. */
function validId(id: string): string {
  if (!z.uuid().safeParse(id).success) usageError('--id must be a key id (a UUID), as list shows');
  return id.toLowerCase();
}

async function create(orm: Orm, dialect: Dialect, name: string): Promise<void> {
  const sql = orm.em.getKysely<Database>();
  const secret = newKeySecret('application_key');
  const id = newId();
  await sql
    .insertInto('application_keys')
    .values({
      id,
      name,
      prefix: secret.slice(0, PREFIX_LENGTH),
      secret_hash: secretHashOf(secret),
      created_at: toDbTimestamp(dialect, new Date()),
      revoked_at: null,
      last_used_at: null,
    })
    .execute();
  console.log(`Application key ${id} (${name}); its secret, shown this once:\n${secret}`);
}

async function list(orm: Orm): Promise<void> {
  const rows = await orm.em
    .getKysely<Database>()
    .selectFrom('application_keys')
    .select(['id', 'name', 'prefix', 'created_at', 'last_used_at', 'revoked_at'])
    .orderBy('created_at')
    .execute();
  if (rows.length === 0) console.log('No application keys');
  for (const row of rows) {
    const lastUsed = isoTimestampOrNull(row.last_used_at) ?? 'never used';
    const revoked = row.revoked_at === null ? 'live' : `revoked ${isoTimestamp(row.revoked_at)}`;
    console.log(
      `${row.id}  ${row.prefix}…  ${row.name}  created ${isoTimestamp(row.created_at)}  ${lastUsed}  ${revoked}`,
    );
  }
}

async function revoke(orm: Orm, dialect: Dialect, id: string): Promise<void> {
  const result = await orm.em
    .getKysely<Database>()
    .updateTable('application_keys')
    .set({ revoked_at: toDbTimestamp(dialect, new Date()) })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) {
    console.error(`npm run app-key: no live application key has the id ${id}`);
    process.exit(1);
  }
  console.log(`Application key ${id} revoked`);
}

const options = readCommand();
if (options.help) {
  console.log(USAGE);
  process.exit(0);
}
if (options.extra.length > 0) usageError(`unexpected argument ${options.extra[0]}`);
if (options.command !== 'create' && options.command !== 'list' && options.command !== 'revoke') {
  usageError('say create, list or revoke');
}
if (options.command === 'create' && options.name === undefined) usageError('create needs --name NAME');
if (options.command === 'revoke' && options.id === undefined) usageError('revoke needs --id KEY_ID');
const keyName = options.command === 'create' ? validName(options.name!) : undefined;
const keyId = options.command === 'revoke' ? validId(options.id!) : undefined;

/**
 * The embedded database's file must be the service's, already there: opening a file that is not
 * would make a new, empty database, and a key in it that the running service refuses.
 */
function refuseMissingEmbeddedFile({ database }: Settings): void {
  if (database.file === undefined) return;
  const problem =
    database.file === ':memory:'
      ? 'DATABASE_URL=:memory: is a database of this command alone: a key made there is gone when it ends'
      : existsSync(database.file)
        ? undefined
        : `DATABASE_URL names ${resolve(database.file)}, which does not exist: start the service once (npm start) to make it, or point DATABASE_URL at the service's database`;
  if (problem === undefined) return;
  console.error(`npm run app-key: ${problem}`);
  process.exit(1);
}

let settings: Settings | undefined;
try {
  settings = readSettings();
  refuseMissingEmbeddedFile(settings);
  const orm = await openDatabase(settings.database);
  try {
    await pingDatabase(orm);
    if (settings.MIGRATE_ON_START) await migrate(orm);
    const dialect = settings.database.engine;
    if (keyName !== undefined) await create(orm, dialect, keyName);
    else if (keyId !== undefined) await revoke(orm, dialect, keyId);
    else await list(orm);
  } finally {
    await orm.close();
  }
} catch (error) {
  exitWithFailure(error, settings);
}
