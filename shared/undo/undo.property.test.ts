/**
 * The property: for random sequences of tool calls run through the tool handlers on
 * the capturing filesystem, restoring each call's snapshot in reverse order returns the
 * workspace to its start — on the in-memory and on the host backend.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { HostFilesystem } from "../filesystem/host/host-filesystem.js";
import { InMemoryFilesystem } from "../filesystem/memory/in-memory-filesystem.js";
import type { Filesystem } from "../filesystem/protocol.js";
import { editFileTool, globTool, grepTool, lsTool, readFileTool, rmTool, writeFileTool } from "../tools/index.js";
import type { ToolDefinition } from "../tools/types.js";
import { invokeToolWithUndo } from "./capturing-filesystem.js";
import { workspaceState } from "./workspace-state.test-support.js";
import { UndoStore } from "./undo-store.node.js";

const temps: string[] = [];
afterAll(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

/** Paths overlap on purpose: files become directories' parents, directories get removed under files. */
const PATHS = ["a.txt", "b", "b/c.txt", "b/d", "b/d/e.txt", "f/g/h.txt", "a.txt/x", "b/c.txt"];
const TEXTS = ["", "one\n", "two two\n", "three\nlines\nhere\n", "ü ñ 😀\n"];

const pathArb = fc.constantFrom(...PATHS);
const textArb = fc.constantFrom(...TEXTS);

/** Calls name their tool (so a counterexample prints readably). */
type Call = { tool: string; params: Record<string, unknown> };
const TOOLS = new Map<string, ToolDefinition>([writeFileTool, editFileTool, rmTool, readFileTool, lsTool, globTool, grepTool].map((tool) => [tool.name, tool]));

const callArb: fc.Arbitrary<Call> = fc.oneof(
  fc.record({ file_path: pathArb, content: textArb, mode: fc.constantFrom("create", "overwrite", "append") }).map((params) => ({ tool: writeFileTool.name, params })),
  fc.record({ file_path: pathArb, old_string: fc.constantFrom("one", "two", "e", "\n"), new_string: fc.constantFrom("1", "", "TWO\nx"), replace_all: fc.boolean() }).map((params) => ({ tool: editFileTool.name, params })),
  fc.record({ path: fc.constantFrom(...PATHS, "b/d", "f") }).map((params) => ({ tool: rmTool.name, params })),
  fc.record({ file_path: pathArb }).map((params) => ({ tool: readFileTool.name, params })),
  fc.record({ path: fc.constantFrom("", "b", "f/g") }).map((params) => ({ tool: lsTool.name, params })),
  fc.constant({ tool: globTool.name, params: { pattern: "**/*.txt" } }),
  fc.constant({ tool: grepTool.name, params: { pattern: "t.o" } }),
);

const seedArb = fc.dictionary(fc.constantFrom("a.txt", "b/c.txt", "b/d/e.txt", "keep/me.txt", "f/g/h.txt"), textArb, { maxKeys: 4 });


async function checkReverseRestore(fs: Filesystem, seed: Record<string, string>, emptyDirs: readonly string[], calls: readonly Call[]): Promise<void> {
  for (const [path, text] of Object.entries(seed)) await fs.write(path, text);
  for (const dir of emptyDirs) await fs.mkdir(dir);
  const start = await workspaceState(fs);
  const store = await UndoStore.create({ workspace: fs, stateDir: await mkdtemp(join(tmpdir(), "wink-undo-prop-")) });
  temps.push(store.stateDir);
  const sessionId = "prop";
  const ids: string[] = [];
  for (const [index, call] of calls.entries()) {
    const toolCallId = `tc_${index}`;
    const tool = TOOLS.get(call.tool) as ToolDefinition;
    await invokeToolWithUndo(tool, call.params, { store, sessionId, toolCallId });
    if (tool.mutates) ids.push(toolCallId);
  }
  for (const toolCallId of ids.reverse()) await store.restore(sessionId, toolCallId);
  expect(await workspaceState(fs)).toEqual(start);
}

describe("property: restoring every call's snapshot in reverse order returns to the start", () => {
  it("in memory", async () => {
    await fc.assert(
      fc.asyncProperty(seedArb, fc.subarray(["empty", "b/empty"]), fc.array(callArb, { maxLength: 14 }), async (seed, emptyDirs, calls) => {
        await checkReverseRestore(new InMemoryFilesystem(), seed, emptyDirs, calls);
      }),
      { numRuns: 150 },
    );
  });

  it("on the host", async () => {
    await fc.assert(
      fc.asyncProperty(seedArb, fc.subarray(["empty", "b/empty"]), fc.array(callArb, { maxLength: 12 }), async (seed, emptyDirs, calls) => {
        const root = await mkdtemp(join(tmpdir(), "wink-undo-prop-host-"));
        temps.push(root);
        await checkReverseRestore(new HostFilesystem({ root, durable: false }), seed, emptyDirs, calls);
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
