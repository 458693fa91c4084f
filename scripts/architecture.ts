// The import graph of shared/, server/ and web/ against the layers of docs/architecture.md:
// lines per folder, imports that point up a layer, and import circles (type-only imports
// count: they tie modules together for the reader and the type-checker alike). Tests and
// test support sit above every layer, so only what they are imported by is checked.
//
//   node --import tsx scripts/architecture.ts          the figures
//   node --import tsx scripts/architecture.ts --json   the same as JSON
// scripts/architecture.test.ts holds the tree to it: no import up a layer, no circle. The layer
// table is scripts/layers.mjs, which eslint.config.js also reads (no-restricted-imports).
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { LAYERS, isTest, layerOf, sourceFiles } from "./layers.mjs";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export { LAYERS, isTest } from "./layers.mjs";
export type { Layer } from "./layers.mjs";

/**
 * Modules loaded from outside the graph (package entry points, the build), so tests may be
 * their only importers here without making them test support.
 */
export const ENTRY_POINTS: ReadonlySet<string> = new Set([
  "shared/index.ts", // wink-debug/shared
  "shared/browser.ts", // the browser-safe part, type-checked by web/tsconfig.json
  "shared/viewer-model.ts", // wink-debug/viewer
  "shared/filesystem/conformance/index.ts", // wink-debug/conformance
]);

function resolveImport(from: string, spec: string, known: ReadonlySet<string>): string | null {
  if (!spec.startsWith(".")) return null;
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  for (const candidate of [base, base.replace(/\.js$/, ".ts"), base.replace(/\.js$/, ".tsx"), base.replace(/\.mjs$/, ".mts"), `${base}.ts`, `${base}/index.ts`]) if (known.has(candidate)) return candidate;
  return null;
}

export interface Architecture {
  readonly lines: Record<string, { source: number; tests: number }>;
  /** `file -> target (layer -> layer)` for every import that points up. */
  readonly upward: string[];
  /** Modules that import each other, directly or round a loop. */
  readonly circles: string[][];
  /**
   * Folders that import each other, directly or round a loop (a folder stands for the modules
   * directly in it), each with one import per folder-to-folder edge inside the loop.
   */
  readonly folderLoops: FolderLoop[];
  readonly unlayered: string[];
  /**
   * Modules only tests import that lack the one test-helper suffix, `.test-support.ts`: the
   * build leaves out `*.test-support.*`, so without it they would ship in dist/.
   */
  readonly testOnly: string[];
}

export interface FolderLoop {
  readonly folders: string[];
  /** `from-folder -> to-folder (module -> module)`, one example per edge of the loop. */
  readonly imports: string[];
}

/**
 * Strongly connected components of more than one node (Tarjan), in the order they close;
 * `skip` nodes are neither entered nor followed.
 */
function components(nodes: Iterable<string>, edges: ReadonlyMap<string, ReadonlySet<string>>, skip: (node: string) => boolean): string[][] {
  const found: string[][] = [];
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  let counter = 0;
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (skip(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of nodes) if (!skip(node) && !index.has(node)) visit(node);
  return found;
}

const ENTRY_LAYER = LAYERS.findIndex((layer) => layer.name === "library entry");

/**
 * Modules left out of the folder graph: the library's entries and the package entry points
 * re-export from the folders below them by design, so their imports would close a loop through
 * every folder that imports a core module beside them.
 */
const isEntry = (file: string): boolean => layerOf(file) === ENTRY_LAYER || ENTRY_POINTS.has(file);

/** The graph of the tree at `root` (the repository by default). */
export function analyse(root: string = repoRoot): Architecture {
  const files = ["shared", "server", "web"].flatMap((dir) => sourceFiles(root, dir));
  const known = new Set(files);
  const lines: Record<string, { source: number; tests: number }> = {};
  const edges = new Map<string, Set<string>>();
  for (const file of files) {
    const text = readFileSync(path.join(root, file), "utf8");
    const top = file.split("/")[0] as string;
    const counts = (lines[top] ??= { source: 0, tests: 0 });
    counts[isTest(file) ? "tests" : "source"] += text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    const targets = new Set<string>();
    for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g)) {
      const target = resolveImport(file, (match[1] ?? match[2]) as string, known);
      if (target !== null) targets.add(target);
    }
    edges.set(file, targets);
  }
  const upward: string[] = [];
  for (const [file, targets] of edges) {
    if (isTest(file)) continue;
    for (const target of targets) {
      if (layerOf(target) > layerOf(file)) upward.push(`${file} -> ${target} (${LAYERS[layerOf(file)]?.name} -> ${LAYERS[layerOf(target)]?.name})`);
    }
  }
  // Circles: strongly connected components of more than one module, tests left out.
  const circles = components(files, edges, isTest);
  // Folder loops: the same over folders, a folder's edges being its modules' imports of modules
  // in other folders. Modules can be acyclic while their folders are not (host/snapshots/x
  // imports host/y, host/z imports host/snapshots/w), which leaves neither folder a unit a
  // reader can take in alone.
  const folderEdges = new Map<string, Set<string>>();
  const example = new Map<string, string>();
  for (const [file, targets] of edges) {
    if (isTest(file) || isEntry(file)) continue;
    const from = path.posix.dirname(file);
    for (const target of targets) {
      const to = path.posix.dirname(target);
      if (isTest(target) || isEntry(target) || to === from) continue;
      let out = folderEdges.get(from);
      if (out === undefined) folderEdges.set(from, (out = new Set()));
      out.add(to);
      const key = `${from} -> ${to}`;
      if (!example.has(key) || `${file} -> ${target}` < (example.get(key) as string)) example.set(key, `${file} -> ${target}`);
    }
  }
  const folderLoops = components([...folderEdges.keys()].sort(), folderEdges, () => false)
    .map((folders) => {
      const imports = folders.flatMap((from) => [...(folderEdges.get(from) ?? [])].filter((to) => folders.includes(to)).map((to) => `${from} -> ${to} (${example.get(`${from} -> ${to}`) as string})`));
      return { folders, imports: imports.sort() };
    })
    .sort((a, b) => (a.folders[0] as string).localeCompare(b.folders[0] as string));
  const unlayered = files.filter((file) => layerOf(file) === -1);
  const importers = new Map<string, string[]>();
  for (const [file, targets] of edges) for (const target of targets) importers.set(target, [...(importers.get(target) ?? []), file]);
  const testOnly = files
    .filter((file) => !file.startsWith("web/") && !isTest(file) && !ENTRY_POINTS.has(file))
    .filter((file) => (importers.get(file) ?? []).length > 0 && (importers.get(file) ?? []).every(isTest))
    .sort();
  return { lines, upward: upward.sort(), circles, folderLoops, unlayered, testOnly };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = analyse();
  if (process.argv.includes("--json")) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } else {
    console.log("lines (source / tests):");
    for (const [top, count] of Object.entries(result.lines)) console.log(`  ${top}: ${count.source} / ${count.tests}`);
    console.log(`\nupward imports: ${result.upward.length}`);
    for (const line of result.upward) console.log(`  ${line}`);
    console.log(`\nimport circles: ${result.circles.length}`);
    for (const circle of result.circles) console.log(`  ${circle.join(" <-> ")}`);
    console.log(`\nfolder loops: ${result.folderLoops.length}`);
    for (const loop of result.folderLoops) {
      console.log(`  ${loop.folders.join(" <-> ")}`);
      for (const line of loop.imports) console.log(`    ${line}`);
    }
    if (result.unlayered.length > 0) console.log(`\nfiles in no layer: ${result.unlayered.join(", ")}`);
    if (result.testOnly.length > 0) console.log(`\nimported only by tests, without the .test-support suffix: ${result.testOnly.join(", ")}`);
  }
}
