/**
 * The built web app's chunks as the browser loads them (dist/web): what `index.html` loads
 * before the first render, and what its script imports once the first frame is painted (the
 * app, `main`), each with the chunks it imports statically. Shared by the size benchmark
 * (bench/web-size.ts) and the test that keeps schemas out of the app's download.
 */
import { readFile, readdir } from "node:fs/promises";
import path from "node:path";

/** Chunks a JS file of `assets` imports statically (`import … from "./x.js"`, `import "./x.js"`), itself included, recursively. */
export async function staticClosure(assets: string, entry: string, seen = new Set<string>()): Promise<Set<string>> {
  if (seen.has(entry)) return seen;
  seen.add(entry);
  const code = await readFile(path.join(assets, entry), "utf8");
  for (const match of code.matchAll(/(?:^|[;}\s])import\s*(?:[\w*{}\s,$]+from\s*)?["']\.\/([\w.-]+\.js)["']/g)) {
    if (match[1] !== undefined) await staticClosure(assets, match[1], seen);
  }
  return seen;
}

export interface WebChunks {
  /** Every .js and .css file of dist/web/assets. */
  readonly assets: readonly string[];
  /** What index.html loads before anything renders (its script, its stylesheet, their static imports). */
  readonly initial: ReadonlySet<string>;
  /** The app: `main` and its static imports, less what `initial` already holds. */
  readonly app: ReadonlySet<string>;
}

export async function webChunks(webDir: string): Promise<WebChunks> {
  const assetsDir = path.join(webDir, "assets");
  const html = await readFile(path.join(webDir, "index.html"), "utf8");
  const entries = [...html.matchAll(/(?:src|href)="\.?\/assets\/([\w.-]+\.(?:js|css))"/g)].map((match) => match[1] ?? "");
  const initial = new Set<string>();
  for (const entry of entries) {
    if (entry.endsWith(".js")) for (const chunk of await staticClosure(assetsDir, entry)) initial.add(chunk);
    else initial.add(entry);
  }
  const assets = (await readdir(assetsDir)).filter((name) => /\.(js|css)$/.test(name));
  const main = assets.find((name) => /^main-[\w-]+\.js$/.test(name));
  // Less what the page already loaded (chunks the two share are counted once, in initial).
  const app = new Set([...(main === undefined ? [] : await staticClosure(assetsDir, main))].filter((name) => !initial.has(name)));
  return { assets, initial, app };
}
