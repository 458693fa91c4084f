/**
 * Request validators that cost nothing at start-up.
 *
 * Fastify compiles every route's schemas with Ajv before it listens: with ~25 routes that
 * was ~85 ms of CPU at every start (a third of it compiling Ajv's meta-schema to check our
 * own schemas), and compiling lazily only moved ~10 ms onto each route's first request (a
 * cold Ajv compiles slowly). So the built server's validators are generated at build time:
 * Ajv's standalone code for every route's request schemas, with Fastify's default Ajv
 * options, as dist/'s `../schemas/precompiled-validators.js` (made by
 * scripts/generate-validators.ts; a test fails when it no longer matches the schemas). A
 * schema missing from it (every schema, run from source) is compiled by Fastify's default
 * Ajv validator on first use. Ajv itself (~280 KB of the bundle, with fast-uri and its JTD
 * compiler) is loaded only then: the built server never loads it.
 */
import type { ValidatorFactory } from "@fastify/ajv-compiler";
import { PRECOMPILED_VALIDATORS } from "../schemas/precompiled-validators.js";

/** What Fastify passes to a validator compiler. */
export interface RouteSchemaDefinition {
  schema: unknown;
  method: string;
  url: string;
  httpPart: string;
}

/** A route's request schema as the server registers it, and whether a generated validator serves it. */
export interface RequestSchemaNotice extends RouteSchemaDefinition {
  precompiled: boolean;
}

/** An Ajv validate function as Fastify calls it. */
interface Validate {
  (data: unknown, context?: unknown): unknown;
  errors?: unknown;
  schemaEnv?: unknown;
}

type BuildValidator = (externalSchemas: Record<string, unknown>, options?: { customOptions?: Record<string, unknown> }) => (route: RouteSchemaDefinition) => Validate;

/** The key of a schema in the generated table: its JSON text. */
export function schemaKey(schema: unknown): string {
  return JSON.stringify(schema);
}

/** A validator compiled by Fastify's default Ajv the first time it is used. */
function lazyAjvValidator(compile: () => (route: RouteSchemaDefinition) => Validate, route: RouteSchemaDefinition): Validate {
  let compiled: Validate | null = null;
  const real = (): Validate => (compiled ??= compile()(route));
  const validate: Validate = (data, context) => {
    const check = real();
    const result = check(data, context);
    validate.errors = check.errors;
    return result;
  };
  // Fastify passes the parent object (so Ajv may coerce the root value) only to functions
  // that have `schemaEnv`, as Ajv's do.
  Object.defineProperty(validate, "schemaEnv", { get: () => real().schemaEnv });
  return validate;
}

/** Fastify's `buildValidator` with a promise that settles once a fallback validator can compile. */
export interface RequestValidatorFactory {
  readonly buildValidator: ValidatorFactory;
  /**
   * Resolves when Fastify's default Ajv compiler, needed by a schema without a generated
   * validator, has loaded (at once when none was needed). Await it before the first request
   * (`buildApp` does, in an `onReady` hook).
   */
  loaded(): Promise<void>;
}

/**
 * Fastify's `schemaController.compilersFactory.buildValidator`: generated validators, else
 * Fastify's default one compiled on first use. `onSchema` hears of every request schema.
 */
export function requestValidatorFactory(onSchema?: (notice: RequestSchemaNotice) => void): RequestValidatorFactory {
  let pool: BuildValidator | null = null;
  let loading: Promise<void> | null = null;
  // Loaded on the first schema that needs it: asynchronously (a bundled dynamic import is a
  // lazy require), so validators compile only after `loaded()`.
  const load = (): Promise<void> =>
    (loading ??= import("@fastify/ajv-compiler").then((module) => {
      // The package's declarations describe the compiled function's signature differently from
      // what it is called with (a route definition, as Fastify documents): type it as called.
      pool = module.default() as unknown as BuildValidator;
    }));
  const factory: BuildValidator = (externalSchemas, options = {}) => {
    let compiler: ((route: RouteSchemaDefinition) => Validate) | null = null;
    const compile = () => {
      if (pool === null) throw new Error("request-validators: a validator was used before Fastify's Ajv compiler loaded (await loaded() first)");
      return (compiler ??= pool(externalSchemas, options));
    };
    return (route) => {
      const generated = PRECOMPILED_VALIDATORS.get(schemaKey(route.schema)) as Validate | undefined;
      onSchema?.({ ...route, precompiled: generated !== undefined });
      if (generated !== undefined) return generated;
      void load();
      return lazyAjvValidator(compile, route);
    };
  };
  return { buildValidator: factory as unknown as ValidatorFactory, loaded: () => loading ?? Promise.resolve() };
}
