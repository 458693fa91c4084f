// The layers of docs/architecture.md hold: nothing imports from a layer above its own, and
// no modules import each other round a loop (scripts/architecture.ts draws the graph).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { LAYERS, analyse } from "./architecture.js";

const graph = analyse();

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

it("names every module only tests import *.test-support.ts (the suffix the build leaves out of dist/)", () => {
  expect(graph.testOnly).toEqual([]);
});

it("finds an upward import and a circle in a tree that has them", () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "wink-architecture-"));
  try {
    const write = (file: string, text: string) => {
      mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      writeFileSync(path.join(root, file), text);
    };
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
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
