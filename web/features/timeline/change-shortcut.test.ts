import { describe, expect, it } from "vitest";
import type { TimelineEventResponse, TimelineResponse, ToolCallChangesResponse } from "../../api/api.js";
import { noChangesReason } from "./change-shortcut.js";

const call = { kind: "tool_call", title: "write_file" } as TimelineEventResponse;
const changes = { tool_calls: [] } as unknown as NonNullable<TimelineResponse["changes"]>;

describe("C without changes to open", () => {
  it("says why", () => {
    expect(noChangesReason(undefined, changes, undefined)).toMatch(/^Select a tool call first/);
    expect(noChangesReason({ kind: "event", title: "PromptRendered" } as TimelineEventResponse, changes, undefined)).toMatch(/PromptRendered, not a tool call/);
    expect(noChangesReason(call, null, undefined)).toMatch(/undo store/);
    expect(noChangesReason(call, changes, undefined)).toBe("write_file changed no files");
    expect(noChangesReason(call, changes, { files: [{ path: "a.txt" }] } as unknown as ToolCallChangesResponse)).toBeNull();
  });
});
