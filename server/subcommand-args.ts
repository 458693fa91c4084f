/** Parsing a subcommand's command line (`wink-debug bundle …`, `wink-debug failures …`). */
import { parseArgs } from "node:util";
import type { ParseArgsConfig } from "node:util";

type Options = NonNullable<ParseArgsConfig["options"]>;
type Parsed<T extends Options> = ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: T }>>;

/**
 * `argv` parsed strictly against `options` (positionals allowed); an unknown or malformed
 * option becomes the error `refuse` makes of its message followed by `usage`.
 */
export function parseSubcommandArgs<T extends Options>(argv: readonly string[], options: T, usage: string, refuse: (message: string) => Error): Parsed<T> {
  try {
    return parseArgs({ args: [...argv], allowPositionals: true, options });
  } catch (error) {
    throw refuse(`${error instanceof Error ? error.message : String(error)}\n${usage}`);
  }
}
