// The web app's first download (the page's script, then the app it loads after the first
// frame, with their static imports) as built in dist/web: no schema library, no schema and no
// view computation travel with it. They come with the route table's schemas (contract.ts) and the viewer's entry,
// which the app's first screens must not import (web/api/routes.ts, shared/viewer/browser.ts):
// a bundler keeps a barrel's schema modules for any one name imported through it.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { webChunks } from "./web-chunks.js";

const WEB = path.resolve(import.meta.dirname, "..", "dist", "web");
/** Sources that must arrive only with the views that need them. */
const LATER = [/node_modules\/typebox\//, /shared\/viewer\/schemas\//, /shared\/debug-bundle\/schemas\.ts$/, /shared\/viewer\/routes\/(contract|route-schemas)\.ts$/, /node_modules\/markdown-it\//, /shared\/viewer\/run-model\.ts$/];

async function sourcesOf(chunk: string): Promise<string[]> {
  const map = path.join(WEB, "assets", `${chunk}.map`);
  // The bundler's own runtime is generated: it has no sources.
  if (!existsSync(map) && chunk.startsWith("rolldown-runtime-")) return [];
  if (!existsSync(map)) throw new Error(`${chunk} has no source map: the check needs the build's maps`);
  return (JSON.parse(await readFile(map, "utf8")) as { sources: string[] }).sources;
}

describe("the web app's first download", () => {
  it("carries no schema, no schema library and no view computation", async () => {
    if (!existsSync(path.join(WEB, "index.html"))) throw new Error("dist/web is not built: run `npm run build` first (npm test does)");
    const { initial, app } = await webChunks(WEB);
    const first = [...initial, ...app].filter((chunk) => chunk.endsWith(".js"));
    expect(first.some((chunk) => /^main-/.test(chunk))).toBe(true);
    const found: string[] = [];
    for (const chunk of first) for (const source of await sourcesOf(chunk)) if (LATER.some((pattern) => pattern.test(source))) found.push(`${chunk}: ${source}`);
    expect(found).toEqual([]);
  });
});
