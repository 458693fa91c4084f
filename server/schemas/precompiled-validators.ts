/**
 * Request validators compiled ahead of time, by the JSON text of their schema (see
 * `../library/request-validators.ts`). Empty in the source: run from source (tsx, vitest), each
 * route's validator is compiled by Fastify's Ajv on its first request. `npm run build` replaces
 * this module in dist/ with Ajv's standalone code for every route's request schemas
 * (scripts/generate-validators.ts), so the built server compiles none when it starts.
 */
export const PRECOMPILED_VALIDATORS: ReadonlyMap<string, (data: unknown, context?: unknown) => boolean> = new Map();
