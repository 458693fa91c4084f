/**
 * What a transcript's quiet entries say, in words: WINK's `content` of a thinking, system,
 * token-usage, plan or error entry is the entry's whole JSON (`wink query` keeps it so, and
 * search runs on it), which the transcript showed as it is. Here: the reasoning summary, "Turn
 * 1 started", "Context compacted", the token counts, the plan's steps, the error's message.
 * Null when the entry holds nothing recognised (its content is shown then).
 */
import { formatCount } from "../../components/format.js";

type JsonRecord = Record<string, unknown>;

const record = (value: unknown): JsonRecord | null => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonRecord) : null);
const text = (value: unknown): string => (typeof value === "string" ? value : "");
const words = (identifier: string) => identifier.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/[_-]+/g, " ").toLowerCase().trim();
const sentence = (phrase: string) => (phrase === "" ? "" : `${phrase[0]?.toUpperCase() ?? ""}${phrase.slice(1)}`);
const count = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? formatCount(value) : null);

/** Text blocks, summaries and strings, joined by newlines. */
function prose(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(prose).filter((part) => part !== "").join("\n");
  const object = record(value);
  if (object === null) return "";
  for (const key of ["text", "thinking", "summary", "content"]) {
    const found = prose(object[key]);
    if (found !== "") return found;
  }
  return "";
}

function tokenText(usage: JsonRecord): string | null {
  const last = record(usage.last) ?? record(usage.total) ?? usage;
  const total = count(last.totalTokens ?? last.total_tokens);
  if (total === null) return null;
  const parts = [
    ["in", last.inputTokens ?? last.input_tokens],
    ["cached", last.cachedInputTokens ?? last.cached_input_tokens],
    ["out", last.outputTokens ?? last.output_tokens],
    ["reasoning", last.reasoningOutputTokens ?? last.reasoning_output_tokens],
  ]
    .map(([label, value]) => (count(value) === null || value === 0 ? null : `${count(value)} ${String(label)}`))
    .filter((part): part is string => part !== null);
  const window = count(usage.modelContextWindow ?? usage.model_context_window);
  const cumulative = record(usage.last) !== null ? count(record(usage.total)?.totalTokens) : null;
  return `${total} tokens${parts.length > 0 ? ` (${parts.join(", ")})` : ""}${cumulative !== null && cumulative !== total ? ` · ${cumulative} in all` : ""}${window === null ? "" : ` · context window ${window}`}`;
}

function planText(notification: JsonRecord): string | null {
  if (!Array.isArray(notification.plan)) return null;
  const steps = notification.plan.map(record).filter((step): step is JsonRecord => step !== null);
  const list = steps.map((step) => `${text(step.step) || "step"}${text(step.status) === "" ? "" : ` (${words(text(step.status))})`}`).join("; ");
  const why = text(notification.explanation);
  return `Plan${why === "" ? "" : `: ${why}`}${list === "" ? "" : ` — ${list}`}`;
}

function turnText(subtype: string, notification: JsonRecord): string | null {
  const turn = record(notification.turn);
  const item = record(notification.item);
  const id = text(turn?.id) || text(notification.turnId);
  const error = prose(record(turn?.error)?.message) || text(notification.additionalDetails);
  if (subtype === "compaction" || text(item?.type) === "contextCompaction") return `Context compacted${id === "" ? "" : ` in turn ${id}`}`;
  if (subtype !== "") {
    const [noun, ...rest] = words(subtype).split(" ");
    const phrase = noun === "turn" && id !== "" ? `turn ${id} ${rest.join(" ")}` : words(subtype);
    return `${sentence(phrase.trim())}${error === "" ? "" : `: ${error}`}`;
  }
  if (turn !== null) return `Turn ${id}${text(turn.status) === "" ? "" : ` ${words(text(turn.status))}`}${error === "" ? "" : `: ${error}`}`;
  return null;
}

/** The readable text of a quiet entry (see the module comment), from its parsed JSON; null when nothing is recognised. */
export function quietEntryText(entryType: string, parsed: JsonRecord | null): string | null {
  if (parsed === null) return null;
  const notification = record(parsed.notification) ?? parsed;
  if (entryType === "thinking") return prose(notification.summary) || prose(notification.text) || prose(parsed.thinking) || prose(notification.item) || prose(parsed) || null;
  const usage = record(notification.tokenUsage) ?? record(notification.usage) ?? record(parsed.usage);
  if (usage !== null) return tokenText(usage);
  const plan = planText(notification);
  if (plan !== null) return plan;
  const turn = turnText(text(parsed.subtype) || text(notification.subtype), notification);
  if (turn !== null) return turn;
  const message = prose(record(notification.error)?.message) || text(notification.message) || text(parsed.message);
  return message === "" ? null : message;
}
