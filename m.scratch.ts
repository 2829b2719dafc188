import { openDatabase, migrate } from './server/data/orm.ts';
const orm = await openDatabase(process.argv[2]!);
await migrate(orm);
console.log((await orm.schema.getUpdateSchemaSQL({ wrap: false })));
await orm.close();
