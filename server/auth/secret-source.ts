/**
 * A secret from the file an option names, else from an environment variable: never from
 * argv, where `ps` shows it to every user of the machine.
 */
import { readFileSync } from "node:fs";

/** A secret that could not be read; the message names the option and the file. */
export class SecretSourceError extends Error {}

/** The trimmed secret from `file` (read for `option`) or `env[variable]`; undefined when neither gives one. */
export function readSecret(option: string, file: string | undefined, env: NodeJS.ProcessEnv, variable: string): string | undefined {
  if (file === undefined) {
    const value = env[variable]?.trim();
    return value === "" ? undefined : value;
  }
  try {
    const value = readFileSync(file, "utf8").trim();
    return value === "" ? undefined : value;
  } catch (error) {
    throw new SecretSourceError(`cannot read ${option} ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
