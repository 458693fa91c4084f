/**
 * The web app's size against its budget (docs/benchmarks.md), from the build in dist/:
 *  - initial: what index.html loads before anything renders (its script and stylesheet and
 *    the chunks they import statically), gzipped;
 *  - the app: what that script imports once the first frame is painted (web/boot.ts loads
 *    `main` then), with its static imports: what must arrive before the page responds;
 *  - each lazy chunk (editor, diff viewer, each language, markdown, local files…), gzipped;
 *  - the standalone single-file build that `wink-debug bundle` inlines.
 * Peer: React + ReactDOM alone (production builds minified with esbuild, gzipped), the floor
 * of any React app.
 * Exits 1 when a budget is exceeded; `npm test` checks the same budgets on its own build
 * (scripts/web-size.test.ts).
 *
 * Run: npm run build && node --import tsx bench/web-size.ts
 */
import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { transform } from "esbuild";
import { REPO } from "../e2e/support/server.js";
import { webChunks } from "../scripts/web-chunks.js";

export const BUDGET_KB = {
  /** Script and stylesheet needed for the first render, gzipped. */
  initial: 160,
  /** The app boot.ts loads after the first frame (main and its static imports), gzipped. */
  app: 160,
  /** Any one lazily loaded chunk, gzipped. */
  lazyChunk: 110,
  /** Everything in dist/web/assets (JS + CSS, no source maps), gzipped. */
  total: 700,
  /** The standalone build inlined by `wink-debug bundle`, gzipped. */
  standalone: 650,
} as const;

const WEB = path.join(REPO, "dist", "web");

async function gz(file: string): Promise<number> {
  return gzipSync(await readFile(file), { level: 9 }).length / 1024;
}

/** One figure of the build against its budget. */
export interface SizeRow {
  readonly what: string;
  readonly kb: number;
  readonly budget: number;
}

/** The built app's figures (dist/web and dist/web-standalone), gzipped, each with its budget. */
export async function webSizes(): Promise<{ rows: SizeRow[]; initial: ReadonlySet<string>; app: ReadonlySet<string>; lazy: string[]; sizes: ReadonlyMap<string, number> }> {
  const { assets, initial, app } = await webChunks(WEB);
  const sizes = new Map<string, number>();
  for (const name of assets) sizes.set(name, await gz(path.join(WEB, "assets", name)));
  const sum = (names: Iterable<string>) => [...names].reduce((total, name) => total + (sizes.get(name) ?? 0), 0);
  const lazy = assets.filter((name) => !initial.has(name) && !app.has(name)).sort((a, b) => (sizes.get(b) ?? 0) - (sizes.get(a) ?? 0));
  const standaloneDir = path.join(REPO, "dist", "web-standalone", "assets");
  let standalone = 0;
  for (const name of await readdir(standaloneDir)) standalone += await gz(path.join(standaloneDir, name));
  const rows: SizeRow[] = [
    { what: "initial (first render)", kb: sum(initial), budget: BUDGET_KB.initial },
    { what: "the app (boot.ts's import after the first frame)", kb: sum(app), budget: BUDGET_KB.app },
    { what: `largest lazy chunk (${lazy[0] ?? "none"})`, kb: sizes.get(lazy[0] ?? "") ?? 0, budget: BUDGET_KB.lazyChunk },
    { what: "all of dist/web (JS + CSS)", kb: sum(assets), budget: BUDGET_KB.total },
    { what: "standalone (wink-debug bundle)", kb: standalone, budget: BUDGET_KB.standalone },
  ];
  return { rows, initial, app, lazy, sizes };
}

async function main(): Promise<void> {
  const { rows, initial, app, lazy, sizes } = await webSizes();
  let react = 0;
  for (const file of [path.join("react", "cjs", "react.production.js"), path.join("react-dom", "cjs", "react-dom-client.production.js")]) {
    const minified = await transform(await readFile(path.join(REPO, "node_modules", file), "utf8"), { minify: true, format: "cjs" });
    react += gzipSync(minified.code, { level: 9 }).length / 1024;
  }

  console.log(`\nweb app size, gzip -9 (peer: React + ReactDOM production alone = ${react.toFixed(1)} KB)\n`);
  console.log("| what | gzipped | budget | |\n|---|---|---|---|");
  let over = false;
  for (const { what, kb, budget } of rows) {
    over ||= kb > budget;
    console.log(`| ${what} | ${kb.toFixed(1)} KB | ${budget} KB | ${kb > budget ? "OVER" : "ok"} |`);
  }
  console.log(`\ninitial = ${[...initial].join(", ")}; ratio to React alone ${((rows[0]?.kb ?? 0) / react).toFixed(2)}×`);
  console.log(`the app = ${[...app].join(", ")}`);
  console.log(`lazy chunks (${lazy.length}): ${lazy.slice(0, 8).map((name) => `${name} ${(sizes.get(name) ?? 0).toFixed(1)} KB`).join(", ")}${lazy.length > 8 ? ", …" : ""}`);
  if (over) process.exitCode = 1;
}

// Run as a script; imported by the test, it only measures.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
