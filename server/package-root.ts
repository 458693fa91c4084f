/**
 * The package's root directory (where package.json is), found from this module's location,
 * so the CLI finds `dist/web` and `examples/snapshots` whether it runs from `dist/` or from
 * the TypeScript sources.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

let cached: string | null = null;

export function packageRoot(): string {
  if (cached !== null) return cached;
  let directory = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(directory, "package.json");
    if (existsSync(candidate)) {
      try {
        if ((JSON.parse(readFileSync(candidate, "utf8")) as { name?: unknown }).name === "wink-debug") return (cached = directory);
      } catch {
        // not ours; keep looking
      }
    }
    const parent = path.dirname(directory);
    if (parent === directory) throw new Error("wink-debug: cannot find the package root (package.json)");
    directory = parent;
  }
}

/** The package version from package.json. */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(path.join(packageRoot(), "package.json"), "utf8")) as { version?: unknown };
  return typeof pkg.version === "string" ? pkg.version : "0.0.0";
}
