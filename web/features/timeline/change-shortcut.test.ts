import { describe, expect, it } from "vitest";
import type { FileChangeResponse, TimelineEventResponse, TimelineResponse, ToolCallChangesResponse } from "../../api/api.js";
import { calledPath, changeOfPath, noChangesReason } from "./change-shortcut.js";

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

describe("C without an undo store", () => {
  const event = (title: string, name: string, value: string) => ({ kind: "tool_call", title, argument: { name, value } }) as TimelineEventResponse;
  it("takes the file a writing call names, not one a reading call names", () => {
    expect(calledPath(event("write_file", "path", "src/inventory/reservations.py"))).toBe("src/inventory/reservations.py");
    expect(calledPath(event("codex:file_change", "file", "src/a.py"))).toBe("src/a.py");
    expect(calledPath(event("edit_file", "file_path", "/repo/src/a.py"))).toBe("/repo/src/a.py");
    expect(calledPath(event("read_file", "path", "docs/notes.md"))).toBeNull();
    expect(calledPath(event("search", "path", "src"))).toBeNull();
    expect(calledPath(event("run_tests", "target", "tests"))).toBeNull();
    expect(calledPath(event("write_file", "path", "."))).toBeNull();
    expect(noChangesReason(event("read_file", "path", "docs/notes.md"), null, undefined)).toMatch(/read_file only reads/);
  });
  it("finds the named file in the workspace diff, also from a working directory or a rename's source", () => {
    const changes = [
      { path: "src/billing/rules.py", status: "renamed", old_path: "src/legacy/rules.py" },
      { path: "src/a.py", status: "modified", old_path: null },
    ] as unknown as FileChangeResponse[];
    expect(changeOfPath(changes, "src/a.py")?.path).toBe("src/a.py");
    expect(changeOfPath(changes, "./src/a.py")?.path).toBe("src/a.py");
    expect(changeOfPath(changes, "/work/repo/src/a.py")?.path).toBe("src/a.py");
    expect(changeOfPath(changes, "src/legacy/rules.py")?.path).toBe("src/billing/rules.py");
    expect(changeOfPath(changes, "src/b.py")).toBeUndefined();
    expect(changeOfPath(changes, "xsrc/a.py")).toBeUndefined();
  });
});
