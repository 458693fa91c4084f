/**
 * A generated corpus of WINK-like session files for the whole-corpus walk: six files of
 * ~25 MB together, the newest 19 MB (a long run whose root line is ~13 MB), each a session tree (a root line and child lines), each line carrying
 * the slices WINK writes (ToolInvoked events with rendered outputs, PromptRendered with a
 * markdown prompt, PromptExecuted, Plan, FileContent, TestReport, Feedback and, on some
 * lines, a VirtualFileSystem with file contents). Shapes follow the real bundles in
 * /work/shared/fixtures/wink-bundles (03-long-run's `session/after.jsonl`); values are
 * deterministic, so two runs walk the same bytes. Written by our writer, which is byte-
 * identical to Python's `json.dumps(sort_keys=True)`.
 */
import { existsSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { dumpsPython } from "../shared/session/index.js";
import { fileText } from "./server-fixtures.js";

const TYPES = {
  tool: "weakincentives.runtime.events.types:ToolInvoked",
  rendered: "weakincentives.runtime.events:PromptRendered",
  executed: "weakincentives.runtime.events:PromptExecuted",
  plan: "weakincentives.contrib.tools.planning:Plan",
  fileContent: "__main__:FileContent",
  testReport: "__main__:TestReport",
  feedback: "weakincentives.prompt.feedback:Feedback",
  vfs: "weakincentives.contrib.tools.vfs:VirtualFileSystem",
};

/** Megabytes per file, newest last (each file is written one second after the previous). */
export const CORPUS_FILE_MB = [0.5, 0.75, 1, 1.5, 2.25, 19] as const;
const LINES_PER_FILE = 3;

function stamp(minute: number, second: number): string {
  return `2026-11-22T01:${String(minute % 60).padStart(2, "0")}:${String(second % 60).padStart(2, "0")}.000000+00:00`;
}

function uuid(seed: number): string {
  const hex = (seed * 2654435761 >>> 0).toString(16).padStart(8, "0");
  return `${hex}-${hex.slice(0, 4)}-4${hex.slice(1, 4)}-8${hex.slice(2, 5)}-${hex}${hex.slice(0, 4)}`;
}

function markdownReport(seed: number, bytes: number): string {
  const body = fileText(seed, Math.max(0, bytes - 200));
  return `## Result of step ${seed}\n\n- read the module\n- **changed** \`value_${seed}\`\n\n\`\`\`python\n${body}\n\`\`\`\n`;
}

function toolItem(seed: number, outputBytes: number): Record<string, unknown> {
  const name = ["read_file", "write_file", "search", "run_tests", "list_dir"][seed % 5] ?? "read_file";
  const output = seed % 3 === 0 ? markdownReport(seed, outputBytes) : fileText(seed, outputBytes);
  return {
    adapter: "codex_app_server",
    call_id: `call_${seed}`,
    created_at: stamp(Math.floor(seed / 60), seed),
    event_id: uuid(seed),
    name,
    params: { path: `payments-service/src/payments/module_${seed % 40}.py` },
    prompt_name: "Workspace Task Agent",
    rendered_output: output,
    result: { message: `${name} payments-service/src/payments/module_${seed % 40}.py`, success: seed % 23 !== 0, value: { content: output.slice(0, 400), total_lines: 40 + (seed % 200) } },
    usage: { cached_tokens: seed % 900, input_tokens: 1200 + (seed % 4000), output_tokens: 80 + (seed % 300) },
  };
}

/** One snapshot line of about `bytes` bytes. */
function lineOf(fileIndex: number, lineIndex: number, sessionId: string, parentId: string | null, childrenIds: string[], bytes: number): string {
  const base = fileIndex * 100_000 + lineIndex * 10_000;
  const withFiles = lineIndex === 0;
  const vfsBytes = withFiles ? Math.floor(bytes * 0.2) : 0;
  const fileBytes = Math.floor(bytes * 0.1);
  const toolBytes = bytes - vfsBytes - fileBytes - 40_000;
  const tools = Array.from({ length: Math.max(1, Math.round(toolBytes / 4_400)) }, (_, i) => toolItem(base + i, 2_000 + ((base + i) % 5) * 400));
  const files = Array.from({ length: Math.max(1, Math.round(fileBytes / 3_000)) }, (_, i) => ({
    content: fileText(base + 5_000 + i, 2_800),
    path: `payments-service/src/payments/module_${i}.py`,
    total_lines: 70,
    truncated: false,
  }));
  const slices: { slice_type: string; item_type: string; items: Record<string, unknown>[] }[] = [
    { slice_type: TYPES.plan, item_type: TYPES.plan, items: [{ objective: "Migrate money arithmetic to Decimal", steps: Array.from({ length: 6 }, (_, i) => ({ status: i < 3 ? "done" : "pending", step_id: i + 1, title: `Step ${i + 1}: migrate module group ${i}` })) }] },
    { slice_type: TYPES.fileContent, item_type: TYPES.fileContent, items: files },
    { slice_type: TYPES.testReport, item_type: TYPES.testReport, items: Array.from({ length: 4 }, (_, i) => ({ duration_ms: 700 + i, failed: i, failures: Array.from({ length: 20 }, (_, k) => ({ message: `AssertionError: behaviour flagged in module_${k}.py`, test: `tests/test_module_${k}.py::test_precision_${i}` })), passed: 200 - i })) },
    { slice_type: TYPES.feedback, item_type: TYPES.feedback, items: Array.from({ length: 8 }, (_, i) => ({ call_index: i * 5, observations: [], prompt_name: "Workspace Task Agent", provider_name: "Deadline", severity: "info", suggestions: [], summary: `The work so far took ${i} minutes. You have 1.5 hours remaining to complete the task.`, timestamp: stamp(i, i) })) },
    { slice_type: TYPES.tool, item_type: TYPES.tool, items: tools },
    { slice_type: TYPES.executed, item_type: TYPES.executed, items: [{ adapter: "codex_app_server", created_at: stamp(59, 0), event_id: uuid(base + 9_998), prompt_name: "Workspace Task Agent", result: { output: { files_changed: files.map((f) => f.path), summary: markdownReport(base, 3_000) } } }] },
    { slice_type: TYPES.rendered, item_type: TYPES.rendered, items: [{ adapter: "codex_app_server", created_at: stamp(0, 0), descriptor: null, event_id: uuid(base + 9_999), prompt_key: "workspace-task", prompt_name: "Workspace Task Agent", prompt_ns: "demo-agent", render_inputs: [], rendered_prompt: `## 1. Role (role)\n\nYou are a careful software engineer.\n\n## 2. Task (task)\n\n${fileText(base + 7, 20_000)}` }] },
  ];
  if (withFiles) {
    const count = Math.max(1, Math.round(vfsBytes / 4_200));
    slices.push({
      slice_type: TYPES.vfs,
      item_type: TYPES.vfs,
      items: [{ files: Array.from({ length: count }, (_, i) => ({ content: fileText(base + 8_000 + i, 4_000), created_at: stamp(0, i), path: { segments: ["src", `pkg${i % 7}`, `file_${i}.py`] }, size_bytes: 4_000, updated_at: stamp(1, i), version: 1 + (i % 3) })) }],
    });
  }
  const tags: Record<string, string> = { session_id: sessionId };
  if (parentId !== null) tags.parent_session_id = parentId;
  return dumpsPython({ children_ids: childrenIds, created_at: stamp(lineIndex, fileIndex), parent_id: parentId, slices, tags, version: "1" }, { sortKeys: true });
}

/** Writes the corpus into `dir` (once; reused after) and returns the file paths, oldest first. */
export async function ensureSessionCorpus(dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const files: string[] = [];
  for (const [fileIndex, megabytes] of CORPUS_FILE_MB.entries()) {
    const rootId = uuid(fileIndex + 1);
    const file = path.join(dir, `${rootId}.jsonl`);
    files.push(file);
    if (existsSync(file)) continue;
    const bytes = megabytes * 1024 * 1024;
    const shares = [0.7, 0.2, 0.1];
    const ids = Array.from({ length: LINES_PER_FILE }, (_, i) => (i === 0 ? rootId : uuid(fileIndex * 10 + i + 100)));
    const lines = ids.map((id, i) => lineOf(fileIndex, i, id, i === 0 ? null : rootId, i === 0 ? ids.slice(1) : [], Math.floor(bytes * (shares[i] ?? 0.1))));
    await writeFile(`${file}.partial`, `${lines.join("\n")}\n`);
    await rename(`${file}.partial`, file);
  }
  return files;
}
