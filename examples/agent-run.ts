/**
 * A scripted, realistic agent run — no LLM, every step decided here — built only from the
 * library an agent builder uses: a workspace owner, the seven filesystem tools with
 * per-tool-call undo, a shell-like tool whose changes are caught by diffing the workspace,
 * a session tree (a coder with a reviewer sub-agent) and one workspace archive per turn.
 *
 *   npx tsx examples/agent-run.ts OUT_DIR [--force]
 *
 * writes into OUT_DIR:
 *   <root_session_id>.jsonl               one line per turn of the coder, then the reviewer's line
 *   <root_session_id>.turn-<n>.fs.zip     the workspace after each turn (named by FilesystemSnapshotRef)
 *   undo/snapshots/<session_id>/…         the per-tool-call undo store (pre-images, post-images)
 *
 * The JSONL and the undo store are deterministic (fixed clock and ids); `examples/snapshots/`
 * is this script's output and is what `npx wink-debug` opens by default.
 */
import { existsSync } from "node:fs";
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { dumpsPython } from "../shared/session/python-json-dumps.js";
import { Session, pythonIsoTimestamp } from "../shared/session/session-model.js";
import { FILESYSTEM_SNAPSHOT_REF_TYPE } from "../shared/session/workspace-items.js";
import { editFileTool, globTool, grepTool, lsTool, readFileTool, rmTool, writeFileTool } from "../shared/tools/index.js";
import type { ToolDefinition, ToolResult } from "../shared/tools/types.js";
import { invokeToolWithUndo } from "../shared/undo/capturing-filesystem.js";
import { WorkspaceChangeTracker } from "../shared/undo/workspace-changes.node.js";
import { InMemoryWorkspace, type FilesystemSnapshotRef } from "../shared/workspace/workspace.js";

export const ROOT_SESSION_ID = "5f0c2b8e-3d41-4a9b-8c7e-1f2a3b4c5d6e";
export const REVIEWER_SESSION_ID = "9a8b7c6d-5e4f-4321-9fed-cba987654321";

const TYPES = {
  toolInvoked: "weakincentives.runtime.events._types:ToolInvoked",
  promptRendered: "weakincentives.runtime.events:PromptRendered",
  promptExecuted: "weakincentives.runtime.events:PromptExecuted",
  plan: "weakincentives.contrib.tools.planning:Plan",
  toolCallRestored: "wink_debug.undo:ToolCallRestored",
} as const;

/** The project the agent works on. */
const PROJECT: Record<string, string> = {
  "package.json": `${JSON.stringify({ name: "tiny-shop", version: "0.3.0", type: "module", scripts: { test: "node --test" } }, null, 2)}\n`,
  "README.md": "# tiny-shop\n\nA small cart library.\n\n## Usage\n\n```ts\nimport { subtotal } from \"./src/cart.js\";\n\nsubtotal([{ sku: \"tea\", price: 4, quantity: 3 }]); // 12\n```\n",
  "docs/CHANGELOG.md": "# Changelog\n\n## 0.3.0\n\n- Add `applyDiscount`.\n\n## 0.2.0\n\n- First release.\n",
  "src/cart.ts": [
    "export interface Item {",
    "  sku: string;",
    "  price: number;",
    "  quantity: number;",
    "}",
    "",
    "/** Sum of the line totals. */",
    "export function subtotal(items: readonly Item[]): number {",
    "  return items.reduce((sum, item) => sum + item.price, 0);",
    "}",
    "",
    "/** `total` minus `percent` percent, rounded to cents. */",
    "export function applyDiscount(total: number, percent: number): number {",
    "  return Math.round((total - (total * percent) / 100) * 100) / 100;",
    "}",
    "",
  ].join("\n"),
  "src/cart.test.ts": [
    'import assert from "node:assert/strict";',
    'import { test } from "node:test";',
    'import { applyDiscount, subtotal } from "./cart.js";',
    "",
    'test("subtotal multiplies price by quantity", () => {',
    '  assert.equal(subtotal([{ sku: "tea", price: 4, quantity: 3 }, { sku: "cup", price: 10, quantity: 1 }]), 22);',
    "});",
    "",
    'test("applyDiscount", () => {',
    "  assert.equal(applyDiscount(80, 25), 60);",
    "});",
    "",
  ].join("\n"),
  "src/format.ts": 'export function formatPrice(value: number): string {\n  return `$${value.toFixed(2)}`;\n}\n',
};

/** A deterministic clock: each event is a few seconds after the previous one. */
class ScriptClock {
  private ms = Date.UTC(2026, 10, 20, 9, 30, 0);
  now(): Date {
    return new Date(this.ms);
  }
  advance(seconds: number): Date {
    this.ms += Math.round(seconds * 1000);
    return this.now();
  }
}

/** Deterministic UUID-shaped ids (xorshift), so the example's files are reproducible. */
function idSource(seed: number): () => string {
  let state = seed >>> 0 || 1;
  const next = (): number => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state;
  };
  const hex = (n: number) => Array.from({ length: n }, () => (next() & 15).toString(16)).join("");
  return () => `${hex(8)}-${hex(4)}-4${hex(3)}-${"89ab"[next() & 3]}${hex(3)}-${hex(12)}`;
}

interface Agent {
  readonly session: Session;
  readonly promptName: string;
  callCount: number;
}

export interface AgentRunResult {
  readonly jsonlPath: string;
  readonly archives: readonly string[];
  readonly undoStateDir: string;
  /** Tool call ids, in order, with whether they succeeded. */
  readonly toolCalls: readonly { readonly session: string; readonly callId: string; readonly name: string; readonly success: boolean }[];
  /** The tool call that was undone. */
  readonly undoneCallId: string;
}

/** Run the scripted agent and write its snapshots directory into `outDir`. */
export async function runAgentExample(outDir: string): Promise<AgentRunResult> {
  const out = resolve(outDir);
  await mkdir(out, { recursive: true });
  const clock = new ScriptClock();
  const newEventId = idSource(20261120);
  const newSnapshotId = idSource(777);
  const root = new Session({ sessionId: ROOT_SESSION_ID, tags: { agent: "coder", app: "tiny-shop" }, clock: () => clock.now() });
  const workspace = new InMemoryWorkspace({ session: root, snapshotDir: out, undo: { stateDir: join(out, "undo"), clock: () => clock.now(), newId: newSnapshotId } });
  const fs = await workspace.filesystem();
  for (const [path, content] of Object.entries(PROJECT)) await fs.write(path, content);
  const store = await workspace.undo();
  const tracker = new WorkspaceChangeTracker(store);

  const coder: Agent = { session: root, promptName: "coder", callCount: 0 };
  const toolCalls: { session: string; callId: string; name: string; success: boolean }[] = [];
  const lines: string[] = [];
  const archives: string[] = [];

  const event = (agent: Agent, type: string, fields: Record<string, unknown>): void => {
    agent.session.append(type, { __type__: type, created_at: pythonIsoTimestamp(clock.advance(1.5)), event_id: newEventId(), session_id: agent.session.sessionId, ...fields });
  };
  const usage = (input: number, output: number) => ({ input_tokens: input, output_tokens: output, cached_tokens: Math.floor(input / 2) });

  const record = (agent: Agent, callId: string, name: string, params: Record<string, unknown>, result: ToolResult) => {
    toolCalls.push({ session: agent.session.sessionId, callId, name, success: result.success });
    event(agent, TYPES.toolInvoked, {
      adapter: "scripted",
      call_id: callId,
      name,
      params,
      prompt_name: agent.promptName,
      rendered_output: result.message,
      result: { exclude_value_from_context: false, message: result.message, success: result.success, value: result.value },
      usage: usage(900 + agent.callCount * 170, 40 + (agent.callCount % 5) * 12),
      value: result.value,
    });
  };

  const call = async (agent: Agent, tool: ToolDefinition, params: Record<string, unknown>): Promise<ToolResult> => {
    agent.callCount += 1;
    const callId = `${agent === coder ? "call" : "review"}_${String(agent.callCount).padStart(3, "0")}`;
    clock.advance(4);
    const result = await invokeToolWithUndo(tool, params, { store, sessionId: agent.session.sessionId, toolCallId: callId });
    record(agent, callId, tool.name, params, result);
    return result;
  };

  /** A shell-like tool (the project's tests): it writes a report straight to the workspace, outside the tools. */
  const runTests = async (agent: Agent): Promise<ToolResult> => {
    agent.callCount += 1;
    const callId = `call_${String(agent.callCount).padStart(3, "0")}`;
    clock.advance(9);
    const { result } = await tracker.track(agent.session.sessionId, callId, async () => {
      const source = (await fs.read("src/cart.ts", { limit: -1 })).content;
      const fixed = source.includes("item.price * item.quantity");
      const report = fixed ? "# tests 2\n# pass 2\n# fail 0\n" : "# tests 2\n# pass 1\n# fail 1\nnot ok 1 - subtotal multiplies price by quantity\n  expected: 22\n  actual: 14\n";
      await fs.write("coverage/test-report.txt", report);
      return { exitCode: fixed ? 0 : 1, report };
    });
    await store.close(agent.session.sessionId, callId);
    const tool: ToolResult = { success: result.exitCode === 0, message: `$ npm test\n${result.report}exit code ${result.exitCode}`, value: { __type__: "examples.tiny_shop:TestRun", exit_code: result.exitCode } };
    record(agent, callId, "shell", { command: "npm test" }, tool);
    return tool;
  };

  const plan = (status: string, done: number) => {
    const titles = ["Find why the subtotal test fails", "Fix subtotal", "Add a changelog entry", "Get a review"];
    root.replace(TYPES.plan, [
      {
        __type__: TYPES.plan,
        objective: "Fix the failing subtotal test in tiny-shop and note it in the changelog",
        status,
        steps: titles.map((title, index) => ({ step_id: index + 1, title, status: index < done ? "done" : index === done ? "in_progress" : "pending" })),
      },
    ]);
  };

  const snapshotTurn = async (turn: number): Promise<FilesystemSnapshotRef> => {
    const archive = join(out, `${ROOT_SESSION_ID}.turn-${turn}.fs.zip`);
    const ref = await workspace.exportSnapshot(archive, { recordAs: "name" });
    archives.push(archive);
    clock.advance(1);
    lines.push(dumpsPython(root.snapshot().raw, { sortKeys: true }));
    return ref;
  };

  const prompt = (agent: Agent, text: string) =>
    event(agent, TYPES.promptRendered, { adapter: "scripted", prompt_name: agent.promptName, prompt_ns: "examples/tiny-shop", prompt_key: agent.promptName, rendered_prompt: text, render_inputs: [] });
  const answer = (agent: Agent, text: string, input: number, output: number) =>
    event(agent, TYPES.promptExecuted, { adapter: "scripted", prompt_name: agent.promptName, result: { output: null, prompt_name: agent.promptName, text }, usage: usage(input, output), value: null });

  // ---- Turn 1: explore and plan.
  await store.beginTurn(ROOT_SESSION_ID, "turn-1");
  prompt(coder, "## Task\n\nThe CI run of **tiny-shop** fails: `subtotal multiplies price by quantity`.\n\n- Find the cause and fix it.\n- Add a changelog entry.\n- Ask the reviewer to check the change.");
  plan("active", 0);
  await call(coder, lsTool, { path: "" });
  await call(coder, globTool, { pattern: "src/*.ts" });
  await call(coder, readFileTool, { file_path: "src/cart.test.ts" });
  await call(coder, readFileTool, { file_path: "src/checkout.ts" }); // does not exist: a failed call
  await call(coder, readFileTool, { file_path: "src/cart.ts" });
  await call(coder, grepTool, { pattern: "subtotal\\(", path: "src" });
  await runTests(coder);
  answer(coder, "The test fails because `subtotal` adds `item.price` and ignores `item.quantity`:\n\n```ts\nreturn items.reduce((sum, item) => sum + item.price, 0);\n```\n\nNext: multiply by the quantity.", 4200, 120);
  await snapshotTurn(1);

  // ---- Turn 2: fix, a failed edit, a mistake that gets undone.
  await store.beginTurn(ROOT_SESSION_ID, "turn-2");
  prompt(coder, "Apply the fix and update the changelog.");
  plan("active", 1);
  await call(coder, editFileTool, { file_path: "src/cart.ts", old_string: "sum + item.price, 0", new_string: "sum + item.price * item.quantity, 0" });
  await call(coder, editFileTool, { file_path: "docs/CHANGELOG.md", old_string: "## 0.", new_string: "## 0.3.1\n\n- Fix `subtotal` ignoring quantities.\n\n## 0." }); // ambiguous: fails
  await call(coder, editFileTool, { file_path: "docs/CHANGELOG.md", old_string: "# Changelog\n\n", new_string: "# Changelog\n\n## 0.3.1\n\n- Fix `subtotal` ignoring quantities.\n\n" });
  await call(coder, writeFileTool, { file_path: "scratch/notes.md", content: "- subtotal: price * quantity\n- check formatPrice rounding later\n" });
  const mistake = await call(coder, writeFileTool, { file_path: "README.md", content: "# tiny-shop\n", mode: "overwrite" });
  const undoneCallId = `call_${String(coder.callCount).padStart(3, "0")}`;
  if (!mistake.success) throw new Error("the scripted mistake should have succeeded");
  // The agent notices it clobbered the README and undoes exactly that tool call.
  clock.advance(3);
  const restored = await store.restore(ROOT_SESSION_ID, undoneCallId);
  event(coder, TYPES.toolCallRestored, { tool_call_id: undoneCallId, restored_paths: [...restored.restoredPaths], reason: "README.md was overwritten by mistake" });
  await runTests(coder);
  plan("active", 3);
  answer(coder, "Fixed `subtotal` (tests pass) and added a **0.3.1** changelog entry. I overwrote `README.md` by mistake and restored it with an undo of that tool call.", 6100, 180);
  await snapshotTurn(2);

  // ---- The reviewer sub-agent (a child session) reads the change and writes its notes.
  const reviewer = root.createChild({ sessionId: REVIEWER_SESSION_ID, tags: { agent: "reviewer", app: "tiny-shop" } });
  const review: Agent = { session: reviewer, promptName: "reviewer", callCount: 0 };
  await store.beginTurn(REVIEWER_SESSION_ID, "review-1");
  prompt(review, "Review the change to `src/cart.ts` and the changelog entry.");
  await call(review, readFileTool, { file_path: "src/cart.ts" });
  await call(review, grepTool, { pattern: "quantity", path: "src", glob: "*.ts" });
  await call(review, readFileTool, { file_path: "docs/CHANGELOG.md", limit: 8 });
  await call(review, writeFileTool, { file_path: "REVIEW.md", content: "# Review\n\n- `subtotal`: correct; consider rejecting negative quantities.\n- Changelog entry: fine.\n\nApproved.\n" });
  answer(review, "Approved, with one suggestion: reject negative quantities.", 2600, 60);

  // ---- Turn 3: clean up and finish.
  await store.beginTurn(ROOT_SESSION_ID, "turn-3");
  prompt(coder, "The reviewer approved. Clean up and finish.");
  await call(coder, readFileTool, { file_path: "REVIEW.md" });
  await call(coder, rmTool, { path: "scratch" });
  await call(coder, rmTool, { path: "coverage" });
  plan("completed", 4);
  answer(coder, "Done:\n\n1. `subtotal` multiplies by quantity.\n2. Changelog entry for **0.3.1**.\n3. Review approved (`REVIEW.md`).", 3900, 90);
  const turn3 = await snapshotTurn(3);

  // The reviewer's line names the archive that holds its REVIEW.md (turn 3's).
  reviewer.replace(FILESYSTEM_SNAPSHOT_REF_TYPE, [turn3], { itemType: FILESYSTEM_SNAPSHOT_REF_TYPE });
  lines.push(dumpsPython(reviewer.snapshot({ createdAt: clock.advance(1) }).raw, { sortKeys: true }));

  const jsonlPath = join(out, `${ROOT_SESSION_ID}.jsonl`);
  await writeFile(jsonlPath, `${lines.join("\n")}\n`);
  await tracker.release(ROOT_SESSION_ID);
  return { jsonlPath, archives, undoStateDir: join(out, "undo"), toolCalls, undoneCallId };
}

async function main(argv: readonly string[]): Promise<number> {
  const args = argv.filter((arg) => arg !== "--force");
  const force = args.length !== argv.length;
  if (args.length !== 1 || args[0] === undefined || args[0].startsWith("-")) {
    process.stderr.write("usage: npx tsx examples/agent-run.ts OUT_DIR [--force]\n");
    return 2;
  }
  const out = resolve(args[0]);
  if (existsSync(out) && (await readdir(out)).length > 0) {
    if (!force) {
      process.stderr.write(`agent-run: ${out} is not empty (pass --force to replace the example's files there)\n`);
      return 2;
    }
    for (const name of await readdir(out)) {
      if (name.startsWith(ROOT_SESSION_ID) || name === "undo") await rm(join(out, name), { recursive: true, force: true });
    }
  }
  const result = await runAgentExample(out);
  const failed = result.toolCalls.filter((call) => !call.success).length;
  process.stdout.write(
    `Wrote ${result.jsonlPath}\n  ${result.archives.length} workspace archives, ${result.toolCalls.length} tool calls (${failed} failed, ${result.undoneCallId} undone)\n  undo store: ${result.undoStateDir}\nView it: npx wink-debug ${out}\n`,
  );
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`agent-run: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}
