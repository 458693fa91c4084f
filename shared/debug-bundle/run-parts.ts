/**
 * What a debug bundle adds to its run (the run model of `shared/viewer/run-model.ts`): the
 * run-level error (`error.json`, traceback included), the panels the bundle offers (logs,
 * transcript, request…), names for its two session lines, and the tool calls that failed
 * according to the transcript. A failed run has no `after.jsonl`, so its session holds no
 * `ToolInvoked` event: its failing calls exist only in the transcript (and handler
 * exceptions or parameter-validation errors never produce a `ToolInvoked`, even when the
 * run succeeds). Browser-safe: the server and the in-browser API build bundle runs alike.
 */
import type { JsonObject, JsonValue } from "../session/json-value.js";
import { isJsonObject, ownValue } from "../session/json-value.js";
import { parsePythonJson } from "../session/python-json-parse.js";
import type { RunInput } from "../viewer/run-model.js";
import { keyArgument } from "../viewer/timeline.js";
import type { RunExtraFailure, RunPanelView } from "../viewer/types.js";
import type { DebugBundle } from "./bundle.js";
import { BUNDLE_MEMBERS } from "./layout.js";
import type { TranscriptCalls, TranscriptIndex } from "./transcript.js";
import { transcriptCalls } from "./transcript.js";
import type { TranscriptEntryView } from "./types.js";

/** The panels of a bundle, in tab order. `eval` is offered only when the bundle has `eval.json` (EvalLoop runs). */
export const BUNDLE_PANELS = [
  { id: "logs", title: "Logs" },
  { id: "transcript", title: "Transcript" },
  { id: "request", title: "Request" },
  { id: "metrics", title: "Metrics" },
  { id: "config", title: "Config" },
  { id: "context", title: "Run context" },
  { id: "eval", title: "Eval" },
  { id: "environment", title: "Environment" },
  { id: "manifest", title: "Manifest" },
] as const satisfies readonly RunPanelView[];

export type BundlePanelId = (typeof BUNDLE_PANELS)[number]["id"];

/** The fields of the run model's input a bundle fills beyond its session (see `RunInput`). */
export type BundleRunParts = Required<Pick<RunInput, "error" | "panels" | "lineLabels" | "extraFailures" | "recordedToolCalls" | "span">>;

/** The panels a bundle offers (every one but `eval` always: a missing member is shown as missing). */
export function bundlePanels(bundle: Pick<DebugBundle, "has">): RunPanelView[] {
  return BUNDLE_PANELS.filter((panel) => panel.id !== "eval" || bundle.has(BUNDLE_MEMBERS.eval)).map((panel) => ({ ...panel }));
}

/**
 * Reads what the run of `bundle` needs beyond its session: `error.json` and the transcript
 * (from the logs). A member that cannot be read does not stop the run from opening: an
 * unreadable `error.json` becomes the run's error, an unreadable log means no transcript
 * failures (the Logs and Transcript panels say why).
 */
export async function bundleRunParts(bundle: DebugBundle): Promise<BundleRunParts> {
  return partsWith(
    bundle,
    () => bundle.transcript(),
    (transcript) => ({ failures: transcriptFailures(transcript), toolUses: transcript.matching({ entryTypes: ["tool_use"] }).length }),
  );
}

/**
 * {@link bundleRunParts} as a run digest needs them: the same parts, the transcript's calls
 * read from its records without building its index (`transcriptCalls`). Members that cannot
 * be read count as they do there.
 */
export async function bundleDigestParts(bundle: DebugBundle): Promise<BundleRunParts> {
  return partsWith(
    bundle,
    async () => {
      // What `bundle.transcript()` reads, and the calls where it builds its index.
      const [logs, file] = await Promise.all([bundle.logs(), bundle.has(BUNDLE_MEMBERS.transcript) ? bundle.read(BUNDLE_MEMBERS.transcript, bundle.limits.maxLogBytes) : null]);
      return transcriptCalls(logs, file);
    },
    (calls) => ({ failures: failuresOfCalls(calls), toolUses: calls.toolUses }),
  );
}

/** The parts, the transcript read by `read` (unreadable: no transcript failures) and its calls counted by `count`. */
async function partsWith<T>(bundle: DebugBundle, read: () => Promise<T>, count: (transcript: T) => { failures: RunExtraFailure[]; toolUses: number }): Promise<BundleRunParts> {
  const reason = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause));
  const [error, transcript] = await Promise.all([
    bundle.error().then(
      (view) => (view === null ? null : { type: view.type === "" ? null : view.type, message: view.message, traceback: view.traceback_text === "" ? null : view.traceback_text }),
      (cause: unknown) => ({ type: null, message: `error.json could not be read: ${reason(cause)}`, traceback: null }),
    ),
    read().catch(() => null),
  ]);
  const calls = transcript === null ? null : count(transcript);
  return {
    error,
    panels: bundlePanels(bundle),
    lineLabels: new Map([
      [1, "before the run"],
      [2, "after the run"],
    ]),
    extraFailures: calls?.failures ?? [],
    recordedToolCalls: calls?.toolUses ?? 0,
    span: { startedAt: bundle.manifest.startedAt, endedAt: bundle.manifest.endedAt },
  };
}

const MESSAGE_CHARS = 300;

function parsedDetail(entry: TranscriptEntryView): JsonObject | null {
  if (entry.parsed === null) return null;
  try {
    const value = parsePythonJson(entry.parsed);
    return isJsonObject(value) ? value : null;
  } catch {
    return null;
  }
}

const objectAt = (object: JsonObject | null | undefined, key: string): JsonObject | null => {
  const value = object == null ? undefined : ownValue(object, key);
  return isJsonObject(value) ? value : null;
};

/** WINK's `ToolInvoked` name of a Codex-native item (`codex:command`…), so both records of one call agree. */
function codexToolName(item: JsonObject): string {
  const type = ownValue(item, "type");
  if (type === "commandExecution") return "codex:command";
  if (type === "fileChange") return "codex:file_change";
  if (type === "webSearch") return "codex:web_search";
  if (type === "mcpToolCall") {
    const server = ownValue(item, "server");
    const tool = ownValue(item, "tool");
    return `codex:mcp:${typeof server === "string" ? server : ""}:${typeof tool === "string" ? tool : ""}`;
  }
  return typeof type === "string" ? `codex:${type}` : "codex";
}

function clip(text: string): string {
  const line = text.trim();
  return line.length > MESSAGE_CHARS ? `${line.slice(0, MESSAGE_CHARS - 1)}…` : line;
}

/** The last non-empty line of a command's output (pytest and most tools end with their verdict). */
function lastLine(text: string): string {
  const lines = text.split("\n").map((line) => line.trim());
  for (let i = lines.length - 1; i >= 0; i--) if (lines[i] !== "") return lines[i] as string;
  return "";
}

/** The text a failed bridged call answered with (its `contentItems`), else the entry's content. */
function resultText(result: JsonObject, fallback: string): string {
  const items = ownValue(result, "contentItems");
  if (Array.isArray(items)) {
    const texts = items.map((item: JsonValue) => (isJsonObject(item) && typeof ownValue(item, "text") === "string" ? (ownValue(item, "text") as string) : "")).filter((text) => text !== "");
    if (texts.length > 0) return texts.join("\n");
  }
  return fallback;
}

/** The columns of a transcript row a failure is told with. */
type FailureRow = Pick<TranscriptEntryView, "rowid" | "timestamp" | "content" | "tool_use_id" | "tool_name">;

/**
 * The `tool_result` entries that say their call failed: a bridged WINK tool answering
 * `success: false` (missing file, policy denial, validation error, handler exception,
 * unknown tool), or a Codex item whose status is `failed` (a command that exited non-zero).
 */
export function transcriptFailures(transcript: TranscriptIndex): RunExtraFailure[] {
  const failures: RunExtraFailure[] = [];
  for (const index of transcript.matching({ entryTypes: ["tool_result"] })) {
    const entry = transcript.entry(index);
    const parsed = parsedDetail(entry);
    const failure = parsed === null ? null : failureOf(parsed, () => entry);
    if (failure !== null) failures.push(failure);
  }
  return failures;
}

/** {@link transcriptFailures} from a transcript's calls (the payloads as parsed, no index built). */
export function failuresOfCalls(calls: TranscriptCalls): RunExtraFailure[] {
  const failures: RunExtraFailure[] = [];
  for (const result of calls.results) {
    const failure = result.parsed === null ? null : failureOf(result.parsed, () => result.row());
    if (failure !== null) failures.push(failure);
  }
  return failures;
}

/** The failure a `tool_result` payload says, or null; `row` is asked for only then (its columns cost a serialisation). */
function failureOf(parsed: JsonObject, row: () => FailureRow): RunExtraFailure | null {
  const notification = objectAt(parsed, "notification");
  const item = objectAt(notification, "item");
  const result = objectAt(parsed, "result");
  if (item !== null) {
    if (ownValue(item, "status") !== "failed") return null;
    const entry = row();
    const command = ownValue(item, "command");
    const exitCode = ownValue(item, "exitCode");
    const output = typeof ownValue(item, "aggregatedOutput") === "string" ? (ownValue(item, "aggregatedOutput") as string) : entry.content;
    const verdict = clip(lastLine(output));
    return {
      title: codexToolName(item),
      call_id: entry.tool_use_id === "" ? null : entry.tool_use_id,
      argument: typeof command === "string" ? keyArgument({ command }) : keyArgument(item),
      message: [typeof exitCode === "number" ? `exit code ${exitCode}` : "failed", verdict].filter((part) => part !== "").join(": "),
      created_at: entry.timestamp,
      transcript_rowid: entry.rowid,
    };
  }
  if (result === null || ownValue(result, "success") !== false) return null;
  const entry = row();
  const tool = notification === null ? undefined : ownValue(notification, "tool");
  return {
    title: typeof tool === "string" && tool !== "" ? tool : entry.tool_name || "tool call",
    call_id: entry.tool_use_id === "" ? null : entry.tool_use_id,
    argument: keyArgument(notification === null ? undefined : ownValue(notification, "arguments")),
    message: clip(resultText(result, entry.content)) || "failed",
    created_at: entry.timestamp,
    transcript_rowid: entry.rowid,
  };
}
