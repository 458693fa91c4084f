/**
 * Query keys, one tree, derived from the route table: a route's answer is keyed by the
 * route's name and its request (`keys.route`), under the scope its request names. Everything
 * about a session file nests under `keys.sessionFile(file)` and everything about one snapshot
 * under `keys.snapshot` (a request with `file`, and `line`), so live reload invalidates a
 * whole file (or the whole cache) by prefix; comparisons of two snapshots (`/api/diff…`) live
 * under `keys.diffs()`, what spans bundles (`/api/bundles…`) under `keys.bundles()`, and any
 * other answer under its route's name (`keys.routeName`).
 */
import type { RouteParams, SnapshotRef } from "./api.js";
import { ROUTES } from "./routes.js";
import type { AskedRouteName } from "./routes.js";

const ROOT = "wink" as const;

export const keys = {
  all: [ROOT] as const,
  /**
   * Where a query waits whose input is missing (nothing selected yet; its fetcher is
   * `skipToken`): under no file, so no invalidation or prefetch ever meets it.
   */
  waiting: (resource: string) => [ROOT, "waiting", resource] as const,
  /** Every session file (`Api.files`, all pages of `/api/files`). */
  files: () => [ROOT, "files"] as const,
  /** Who is signed in: outside `all`, so live reload's refresh of every run never asks it again. */
  signedInUser: () => ["wink-sign-in", "user"] as const,
  sessionFile: (file: string) => [ROOT, "file", file] as const,
  snapshot: (ref: SnapshotRef) => [...keys.sessionFile(ref.file), "line", ref.line] as const,
  diffs: () => [ROOT, "diff"] as const,
  bundles: () => [ROOT, "bundles"] as const,
  /** Every answer of a route whose request names no file (the run list, the eval, the newest run…). */
  routeName: (name: AskedRouteName) => [ROOT, name] as const,
  /** The answer of `name` to `params`: every input of the request is in the key (an undefined one counts as absent). */
  route: <Name extends AskedRouteName>(name: Name, params: RouteParams<Name>): readonly unknown[] => {
    const url: string = ROUTES[name].url;
    if (url.startsWith("/api/diff")) return [...keys.diffs(), name, params];
    if (url.startsWith("/api/bundles")) return [...keys.bundles(), name, params];
    const { file, line, ...rest } = params as { file?: unknown; line?: unknown };
    if (typeof file === "string") return typeof line === "number" ? [...keys.snapshot({ file, line }), name, rest] : [...keys.sessionFile(file), name, rest];
    return [...keys.routeName(name), params];
  },
};
