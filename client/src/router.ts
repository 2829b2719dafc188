/**
 * The router's type as the package publishes it: every procedure with its input, output and error
 * shape, and nothing of the server behind them. The server's own `AppRouter` also carries its
 * request context (database, logger, settings) and each procedure's REST meta, whose declarations
 * come from Fastify, MikroORM, Kysely and trpc-to-openapi; a frontend would have to install those
 * for its compiler to read the client's types. tRPC's client reads neither (only procedures'
 * inputs and outputs, the error shape and the transformer), so both become `object` here.
 *
 * The declaration emitter writes a value's inferred type out in full, down to plain object types,
 * where it would keep a type alias by name (and so the import of the server's module behind it).
 * Hence `routerShape`: a value that exists only for its type, never imported at run time.
 */
import type {
  TRPCBuiltRouter,
  TRPCMutationProcedure,
  TRPCQueryProcedure,
  TRPCSubscriptionProcedure,
} from '@trpc/server';
import type { AppRouter as ServerRouter } from '../../server/modules/router.ts';

/** What the client knows of a procedure: its input, output and error shape. */
interface ProcedureTypes {
  input: unknown;
  output: unknown;
  errorShape?: unknown;
}
/** A conditional, here as below, so that the emitter writes the result out rather than the alias's name. */
type Public<Types extends ProcedureTypes> = Types extends ProcedureTypes
  ? { input: Types['input']; output: Types['output']; errorShape: Types['errorShape']; meta: object }
  : never;

/** Each procedure of a router record with its meta replaced, nested records alike. */
type PublicRecord<Record> = Record extends object
  ? {
      [Key in keyof Record]: Record[Key] extends TRPCQueryProcedure<infer Types>
        ? TRPCQueryProcedure<Public<Types>>
        : Record[Key] extends TRPCMutationProcedure<infer Types>
          ? TRPCMutationProcedure<Public<Types>>
          : Record[Key] extends TRPCSubscriptionProcedure<infer Types>
            ? TRPCSubscriptionProcedure<Public<Types>>
            : PublicRecord<Record[Key]>;
    }
  : never;

type PublicRouter<Router> =
  Router extends TRPCBuiltRouter<infer Root, infer Record>
    ? TRPCBuiltRouter<
        { ctx: object; meta: object; errorShape: Root['errorShape']; transformer: Root['transformer'] },
        PublicRecord<Record>
      >
    : never;

const typeOnly = <Type>() => undefined as Type;
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- a value for its type alone (see above)
const routerShape = typeOnly<PublicRouter<ServerRouter>>();

/** The service's router as the client sees it: pass it to tRPC's own tools where they ask for one. */
export type AppRouter = typeof routerShape;
