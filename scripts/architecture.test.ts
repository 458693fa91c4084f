// The layers of docs/architecture.md hold: nothing imports from a layer above its own, no
// modules import each other round a loop, nor do folders (scripts/architecture.ts draws the
// graph), and eslint refuses an import up a layer as it is written (the same table,
// scripts/layers.mjs).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { expect, it, onTestFinished } from "vitest";
import { LAYERS, analyse } from "./architecture.js";

const graph = analyse();

/** A scratch tree for analyse(), removed after the test. */
function plantedTree(): { root: string; write: (file: string, text: string) => void } {
  const root = mkdtempSync(path.join(os.tmpdir(), "wink-architecture-"));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  };
  return { root, write };
}

it("puts every module of shared/, server/ and web/ in a layer", () => {
  expect(graph.unlayered).toEqual([]);
  expect(LAYERS.map((layer) => layer.name)).toEqual(["core", "formats", "backends", "snapshots and sources", "workspace", "conformance", "library entry", "server", "web"]);
});

it("has no import that points up a layer", () => {
  expect(graph.upward).toEqual([]);
});

it("has no import circle", () => {
  expect(graph.circles).toEqual([]);
});

it("has no folder loop anywhere (shared/, server/, web/)", () => {
  expect(graph.folderLoops.map((loop) => loop.folders)).toEqual([]);
});

it("names every module only tests import *.test-support.ts (the suffix the build leaves out of dist/)", () => {
  expect(graph.testOnly).toEqual([]);
});

it("finds an upward import and a circle in a tree that has them", () => {
  const { root, write } = plantedTree();
  write("shared/filesystem/protocol.ts", 'import { MemoryDriver } from "./memory/driver.js";\n');
  write("shared/filesystem/memory/driver.ts", 'import type { Tree } from "./tree.js";\nexport class MemoryDriver {}\n');
  write("shared/filesystem/memory/tree.ts", 'import type { MemoryDriver } from "./driver.js";\nexport type Tree = MemoryDriver;\n');
  write("shared/filesystem/memory/driver.test.ts", 'import { analyse } from "../../../server/app.js";\n');
  write("server/app.ts", 'import { MemoryDriver } from "../shared/filesystem/memory/driver.js";\n');
  write("server/app-helpers.ts", "export const port = 0;\n");
  write("server/app.test.ts", 'import { port } from "./app-helpers.js";\n');
  mkdirSync(path.join(root, "web"));
  const found = analyse(root);
  expect(found.upward).toEqual(["shared/filesystem/protocol.ts -> shared/filesystem/memory/driver.ts (core -> backends)"]);
  expect(found.circles).toEqual([["shared/filesystem/memory/driver.ts", "shared/filesystem/memory/tree.ts"]]);
  // app.ts too: in this tree only driver.test.ts imports it.
  expect(found.testOnly).toEqual(["server/app-helpers.ts", "server/app.ts"]);
  expect(found.lines).toEqual({ shared: { source: 5, tests: 1 }, server: { source: 2, tests: 1 } });
});

it("finds a folder loop in a tree that has one, and none once it is broken", () => {
  const { root, write } = plantedTree();
  // No module circle: snapshot.ts -> apply.ts -> ../journal.ts, host-fs.ts -> snapshot.ts. But
  // host/ and host/snapshots/ import each other.
  write("shared/filesystem/protocol.ts", "export type P = 1;\n");
  write("shared/filesystem/host/journal.ts", 'import type { P } from "../protocol.js";\nexport type J = P;\n');
  write("shared/filesystem/host/snapshots/apply.ts", 'import type { J } from "../journal.js";\nexport type A = J;\n');
  write("shared/filesystem/host/snapshots/snapshot.ts", 'import type { A } from "./apply.js";\nexport type S = A;\n');
  write("shared/filesystem/host/host-fs.ts", 'import type { S } from "./snapshots/snapshot.js";\nexport type H = S;\n');
  // Entries and tests re-export or import across folders by design: no loop through them.
  write("shared/filesystem/index.ts", 'export type { H } from "./host/host-fs.js";\n');
  write("shared/filesystem/host/snapshots/snapshot.test.ts", 'import type { H } from "../host-fs.js";\nexport type T = H;\n');
  write("shared/index.ts", 'export type { H } from "./filesystem/index.js";\n');
  mkdirSync(path.join(root, "server"));
  mkdirSync(path.join(root, "web"));
  const found = analyse(root);
  expect(found.circles).toEqual([]);
  expect(found.folderLoops).toEqual([
    {
      folders: ["shared/filesystem/host", "shared/filesystem/host/snapshots"],
      imports: [
        "shared/filesystem/host -> shared/filesystem/host/snapshots (shared/filesystem/host/host-fs.ts -> shared/filesystem/host/snapshots/snapshot.ts)",
        "shared/filesystem/host/snapshots -> shared/filesystem/host (shared/filesystem/host/snapshots/apply.ts -> shared/filesystem/host/journal.ts)",
      ],
    },
  ]);
  // journal.ts moved below both folders (as host/io/ did): the loop is gone.
  rmSync(path.join(root, "shared/filesystem/host/journal.ts"));
  write("shared/filesystem/host/io/journal.ts", 'import type { P } from "../../protocol.js";\nexport type J = P;\n');
  write("shared/filesystem/host/snapshots/apply.ts", 'import type { J } from "../io/journal.js";\nexport type A = J;\n');
  expect(analyse(root).folderLoops).toEqual([]);
});

it("fails lint on an import from a layer above, and on a Node built-in in browser-safe code", async () => {
  const eslint = new ESLint({ cwd: path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..") });
  const restricted = async (filePath: string, text: string) =>
    (await eslint.lintText(text, { filePath }))[0]?.messages.filter((message) => message.ruleId === "no-restricted-imports").map((message) => message.message.replace(/^.* by a pattern\. /, "")) ?? [];
  // core -> backends (protocol.ts is core, memory/ a backend), and server -> web.
  expect(await restricted("shared/filesystem/protocol.ts", 'export { InMemoryFilesystem } from "./memory/in-memory-filesystem.js";\n')).toEqual([
    "core may not import from backends, a layer above it (docs/architecture.md)",
  ]);
  expect(await restricted("shared/archive/manifest.ts", 'import type { Workspace } from "../workspace/workspace.js";\nexport type W = Workspace;\n')).toEqual([
    "formats may not import from workspace, a layer above it (docs/architecture.md)",
  ]);
  expect(await restricted("server/app.ts", 'import { App } from "../web/app/App.js";\nexport const app = App;\n')).toEqual(["server may not import from web, a layer above it (docs/architecture.md)"]);
  // Down a layer, or within one, is fine; tests may import anything.
  expect(await restricted("shared/filesystem/memory/tree.ts", 'import { normalizePath } from "../paths.js";\nexport const n = normalizePath;\n')).toEqual([]);
  expect(await restricted("shared/filesystem/protocol.test.ts", 'import { InMemoryFilesystem } from "./memory/in-memory-filesystem.js";\nexport const m = InMemoryFilesystem;\n')).toEqual([]);
  // Browser safety holds beside the layer rule in the same modules.
  expect(await restricted("shared/viewer/markdown.ts", 'import { readFileSync } from "node:fs";\nexport const r = readFileSync;\n')).toEqual(["browser-safe module: no Node built-ins"]);
}, 60_000);
