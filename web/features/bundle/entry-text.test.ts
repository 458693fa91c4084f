import { describe, expect, it } from "vitest";
import { quietEntryText } from "./entry-text.js";

// The quiet entries of WINK's real transcripts (fixtures/wink-bundles), their `detail` as written.
describe("quiet transcript entries in words", () => {
  it("a thinking entry is its reasoning summary", () => {
    expect(quietEntryText("thinking", { notification: { threadId: "thr_4010861185bc", turnId: "1", itemId: "rs_0001", summary: ["Start by looking at the repository layout and the failing behaviour."] } })).toBe("Start by looking at the repository layout and the failing behaviour.");
    expect(quietEntryText("thinking", { type: "thinking", thinking: "Claude's own words." })).toBe("Claude's own words.");
  });

  it("system events say what happened to the turn", () => {
    expect(quietEntryText("system_event", { notification: { threadId: "thr_293fed96ed27", turn: { id: "1", items: [], status: "inProgress", error: null } }, subtype: "turn_started" })).toBe("Turn 1 started");
    expect(quietEntryText("system_event", { notification: { threadId: "thr_8828f07900a2", turnId: "1", item: { type: "contextCompaction", id: "cc_0006" } }, subtype: "compaction" })).toBe("Context compacted in turn 1");
  });

  it("token usage is counted, a plan is its steps, an error is its message", () => {
    expect(
      quietEntryText("token_usage", {
        notification: {
          threadId: "thr_293fed96ed27",
          turnId: "1",
          tokenUsage: { total: { totalTokens: 25200, inputTokens: 24000, cachedInputTokens: 8192, outputTokens: 1200, reasoningOutputTokens: 0 }, last: { totalTokens: 12600, inputTokens: 12000, cachedInputTokens: 8192, outputTokens: 600, reasoningOutputTokens: 200 }, modelContextWindow: 272000 },
        },
      }),
    ).toBe("12,600 tokens (12,000 in, 8,192 cached, 600 out, 200 reasoning) · 25,200 in all · context window 272,000");
    expect(quietEntryText("unknown", { notification: { threadId: "thr_8828f07900a2", turnId: "1", explanation: "halfway", plan: [{ step: "Migrate modules", status: "inProgress" }, { step: "Run the tests", status: "pending" }] } })).toBe("Plan: halfway — Migrate modules (in progress); Run the tests (pending)");
    expect(quietEntryText("error", { notification: { threadId: "thr_94b2e7604067", turn: { id: "1", items: [], status: "failed", error: { message: "Your input exceeds the context window of this model." }, codexErrorInfo: "contextWindowExceeded" } } })).toBe("Turn 1 failed: Your input exceeds the context window of this model.");
  });

  it("says nothing of what it does not know", () => {
    expect(quietEntryText("system_event", { notification: { threadId: "thr_1" } })).toBeNull();
    expect(quietEntryText("unknown", null)).toBeNull();
  });
});
