/**
 * The library is the bottom layer: nothing in shared/ (tests included) may import from
 * server/, web/, e2e/, bench/ or examples/ (a contract that needs something from above
 * lives in the wrong place). Test fixtures are below everything and may be imported.
 */
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";

const here = import.meta.dirname;
const above = ["server", "web", "e2e", "bench", "examples"].map((name) => path.join(here, "..", name));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

it("shared/ imports nothing from the layers above it", () => {
  const offenders: string[] = [];
  for (const file of sources(here)) {
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(/(?:from|import)\s*\(?\s*["'](\.[^"']+)["']/g)) {
      const target = path.resolve(path.dirname(file), match[1] as string);
      if (above.some((layer) => target === layer || target.startsWith(`${layer}${path.sep}`))) offenders.push(`${path.relative(here, file)} -> ${match[1]}`);
    }
  }
  expect(offenders).toEqual([]);
});
