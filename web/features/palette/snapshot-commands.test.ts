import { describe, expect, it } from "vitest";
import type { RunResponse } from "../../api/api.js";
import { formatLocalTime } from "../../components/format.js";
import type { SnapshotEntry } from "../sessions/snapshot-list.js";
import { filterCommands } from "./CommandPalette.js";
import type { Command } from "./CommandPalette.js";
import { previousInSession, snapshotChoices } from "./snapshot-commands.js";

const ROOT = "0b6f4f0e-5c1e-4b6a-9d8e-6a3c2f1e0a11";
const entry = (file: string, line: number, sessionId: string, tags: Record<string, string>): SnapshotEntry => ({ file, line, sessionId, createdAt: `2026-01-15T09:3${line}:00+00:00`, depth: 0, fileName: file, eventCount: 0, tags });
const entries = [entry("another.jsonl", 1, "9f0e0000-0000-4000-8000-000000000001", {}), ...[1, 2, 3].map((line) => entry("run.jsonl", line, ROOT, { agent: "shop-fixer" }))];
const run = {
  source: { path: "run.jsonl" },
  sessions: [{ session_id: ROOT, snapshots: [1, 2, 3].map((line) => ({ line_number: line, label: `turn ${line + 14} · turn-${line + 14}.fs.zip` })) }],
} as unknown as RunResponse;

describe("the palette's snapshots", () => {
  it("are named by agent and turn, the open run's first, with a short id and the local time", () => {
    const choices = snapshotChoices(entries, run);
    expect(choices.map((choice) => choice.title)).toEqual(["shop-fixer · turn 15 · turn-15.fs.zip", "shop-fixer · turn 16 · turn-16.fs.zip", "shop-fixer · turn 17 · turn-17.fs.zip", "9f0e0000… · line 1"]);
    expect(choices[1]?.subtitle).toBe(`0b6f4f0e… · ${formatLocalTime("2026-01-15T09:32:00+00:00")} · line 2 of run.jsonl`);
    for (const choice of choices) expect(`${choice.title} ${choice.subtitle}`).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}|T\d\d:/);
  });

  it("are found by their turn, and still by the full session id", () => {
    const commands = snapshotChoices(entries, run).map(({ entry: { line, file }, title, subtitle, keywords }): Command => ({ id: `${file}:${line}`, group: "Sessions", title, subtitle, keywords, run: () => undefined }));
    expect(filterCommands(commands, "turn 16").map((command) => command.id)).toEqual(["run.jsonl:2"]);
    expect(filterCommands(commands, ROOT)).toHaveLength(3);
  });

  it("name a session without tags as the run list does (WINK's first prompt), not by a short id", () => {
    const untagged = "78789b9e-3e20-53c0-97ab-92eceb017908";
    const tree = { source: { path: "tree.jsonl" }, sessions: [{ session_id: untagged, title: "sunfish_code_review_agent_workspace_digest", snapshots: [{ line_number: 4, label: "turn 1" }] }] } as unknown as RunResponse;
    const [choice] = snapshotChoices([entry("tree.jsonl", 4, untagged, {})], tree);
    expect(choice?.title).toBe("sunfish_code_review_agent_workspace_digest · turn 1");
  });

  it("offer the previous snapshot of the selected one's session to compare with", () => {
    expect(previousInSession(run, { file: "run.jsonl", line: 3 })).toEqual({ file: "run.jsonl", line: 2 });
    expect(previousInSession(run, { file: "run.jsonl", line: 1 })).toBeNull();
    expect(previousInSession(run, { file: "another.jsonl", line: 1 })).toBeNull();
  });
});
