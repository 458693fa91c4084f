// The layers of docs/architecture.md, bottom first: a module may import from its own layer and
// those below. One table for both checks: scripts/architecture.ts (the import graph, in
// npm test) and eslint.config.js (no-restricted-imports per layer, in npm run lint). Plain
// JavaScript so that the eslint config can load it; types in layers.d.mts.
import { readdirSync } from "node:fs";
import path from "node:path";

export const LAYERS = [
  { name: "core", holds: "protocol, paths, limits, errors, glob, streams, text, the snapshot contract", match: (f) => f === "shared/errors.ts" || (/^shared\/filesystem\/[^/]+\.ts$/.test(f) && f !== "shared/filesystem/index.ts") },
  { name: "formats", holds: "ZIP archives: reading, writing, the archive policy", match: (f) => f.startsWith("shared/archive/") },
  { name: "backends", holds: "memory, host directory (with its native snapshots), Podman; the driver-backed Filesystem", match: (f) => /^shared\/filesystem\/(memory|host|podman|driver-backed)\//.test(f) },
  { name: "snapshots and sources", holds: "archive snapshots of any backend; remote byte sources", match: (f) => /^shared\/(snapshots|remote)\//.test(f) },
  { name: "workspace", holds: "agent tools, undo, workspaces and sandboxes, session files, debug bundles, the viewer model", match: (f) => /^shared\/(tools|undo|workspace|session|debug-bundle|viewer)\//.test(f) },
  { name: "conformance", holds: "the Filesystem conformance suite", match: (f) => f.startsWith("shared/filesystem/conformance/") },
  { name: "library entry", holds: "shared/index.ts, shared/browser.ts, shared/filesystem/index.ts", match: (f) => /^shared\/[^/]+\.ts$/.test(f) || f === "shared/filesystem/index.ts" },
  { name: "server", holds: "Fastify app, routes, CLI", match: (f) => f.startsWith("server/") },
  { name: "web", holds: "React app", match: (f) => f.startsWith("web/") },
];

/** Index into LAYERS of a repository-relative path, -1 when it is in none. */
export const layerOf = (file) => LAYERS.findIndex((layer) => layer.match(file));

/** Tests and test support sit above every layer: they may import anything. */
export const isTest = (file) => /\.(test|spec|bench)\.(ts|tsx|mts)$/.test(file) || /test-support|\.data\.ts$|\/fixtures\//.test(file);

/** The TypeScript sources below `dir` (relative to `root`), as repository-relative paths. */
export function sourceFiles(root, dir) {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return ["node_modules", "__snapshots__"].includes(entry.name) ? [] : sourceFiles(root, rel);
    return /\.(ts|tsx|mts)$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [rel] : [];
  });
}

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * eslint config blocks that refuse, in each layer's modules, an import from a layer above:
 * `no-restricted-imports` matches the import as written, so each block lists, relative to its
 * folder, the modules (or whole folders) of every higher layer. Tests are left out (they may
 * import anything); `import()` and circles are scripts/architecture.ts's to catch. eslint keeps
 * one set of options per rule and file, so `extra(file)` adds the file's other restrictions
 * (the browser-safe modules' ban on Node built-ins) to the same rule.
 */
export function layerImportRules(root, extra = () => []) {
  const files = ["shared", "server", "web"].flatMap((dir) => sourceFiles(root, dir)).filter((file) => !isTest(file));
  const byDir = new Map();
  for (const file of files) byDir.set(path.posix.dirname(file), [...(byDir.get(path.posix.dirname(file)) ?? []), file]);
  /** A folder's modules as one regex when all of them are in `layer`, else each module. */
  const targetsIn = (layer, from) =>
    [...byDir].flatMap(([dir, inDir]) => {
      const relDir = path.posix.relative(from, dir) || ".";
      const prefix = relDir.startsWith(".") ? relDir : `./${relDir}`;
      if (inDir.every((file) => layerOf(file) === layer)) return [`${escape(prefix)}/[^/]+`];
      return inDir.filter((file) => layerOf(file) === layer).map((file) => `${escape(prefix)}/${escape(path.posix.basename(file).replace(/\.(ts|tsx|mts)$/, ""))}(\\.(js|mjs|ts|tsx))?`);
    });
  const blocks = [];
  for (const [dir, inDir] of byDir) {
    for (let layer = 0; layer < LAYERS.length; layer++) {
      const own = inDir.filter((file) => layerOf(file) === layer);
      if (own.length === 0) continue;
      const patterns = [];
      for (let above = layer + 1; above < LAYERS.length; above++) {
        const targets = targetsIn(above, dir);
        if (targets.length > 0) patterns.push({ regex: `^(${targets.join("|")})$`, message: `${LAYERS[layer].name} may not import from ${LAYERS[above].name}, a layer above it (docs/architecture.md)` });
      }
      const byExtra = new Map();
      for (const file of own) {
        const more = extra(file);
        const key = JSON.stringify(more);
        byExtra.set(key, { more, files: [...(byExtra.get(key)?.files ?? []), file] });
      }
      for (const { more, files: group } of byExtra.values()) {
        if (patterns.length + more.length > 0) blocks.push({ files: group, rules: { "no-restricted-imports": ["error", { patterns: [...patterns, ...more] }] } });
      }
    }
  }
  return blocks;
}
