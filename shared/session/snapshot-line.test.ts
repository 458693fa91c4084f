import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { JsonObject } from "./json-value.js";
import { dumpsPython } from "./python-json-dumps.js";
import type { SessionSnapshot, SnapshotLineResult } from "./snapshot-line.js";
import { findSlice, parseJsonLine, parseSnapshotLine } from "./snapshot-line.js";
import { displayName, isEventItem, sliceKindOf } from "./type-names.js";
import { WINK_FIXTURES } from "../../fixtures/paths.js";

const FIXTURES = WINK_FIXTURES;

function envelope(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    version: "1",
    created_at: "2024-01-15T10:30:00+00:00",
    parent_id: null,
    children_ids: [],
    slices: [{ slice_type: "app:Plan", item_type: "app:Plan", items: [{ __type__: "app:Plan", step: 1 }] }],
    tags: { session_id: "s-1" },
    ...overrides,
  };
}

function line(value: unknown): string {
  return dumpsPython(value, { sortKeys: true });
}

function loaded(result: SnapshotLineResult): SessionSnapshot {
  if (!result.ok) throw new Error(`expected the line to load: ${result.error.reason}`);
  return result.snapshot;
}

function refused(result: SnapshotLineResult): string {
  if (result.ok) throw new Error("expected an error line");
  return result.error.reason;
}

describe("parseSnapshotLine on WINK's own files", () => {
  it("types a real snapshot: envelope, slices with display names and kinds, raw kept", () => {
    const text = readFileSync(`${FIXTURES}/acc0d4c3-321a-5d97-a3a9-505f3aba4219.jsonl`, "utf8").trimEnd();
    const snapshot = loaded(parseSnapshotLine(text, 3));
    expect(snapshot).toMatchObject({
      version: "1",
      createdAt: "2026-11-22T01:32:19.511300+00:00",
      parentId: null,
      childrenIds: [],
      sessionId: "acc0d4c3-321a-5d97-a3a9-505f3aba4219",
      lineNumber: 3,
      validationErrors: [],
    });
    expect(snapshot.tags).toEqual({ app: "planner-demo", env: "dev", session_id: "acc0d4c3-321a-5d97-a3a9-505f3aba4219" });
    expect(snapshot.slices.map((slice) => [slice.displayName, slice.itemDisplayName, slice.kind, slice.items.length])).toEqual([
      ["Plan", "Plan", "state", 1],
      ["ToolInvoked", "ToolInvoked", "event", 5],
      ["PromptExecuted", "PromptExecuted", "event", 1],
      ["PromptRendered", "PromptRendered", "event", 1],
    ]);
    const toolCall = findSlice(snapshot, "weakincentives.runtime.events._types:ToolInvoked")?.items[0];
    expect(toolCall?.__type__).toBe("weakincentives.runtime.events._types:ToolInvoked");
    expect(line(snapshot.raw)).toBe(text);
  });

  it("ignores extra envelope keys (policies)", () => {
    const text = readFileSync(`${FIXTURES}/fszip-pr633/0f5f356f-9bfe-4e60-8222-b6a717dc8521.jsonl`, "utf8").trimEnd();
    const snapshot = loaded(parseSnapshotLine(text, 1));
    expect(snapshot.slices.map((slice) => slice.displayName)).toEqual(["Plan"]);
    expect(snapshot.raw.policies).toBeDefined();
  });

  it("loads an unknown type from a module that does not exist, without a validation error", () => {
    const text = readFileSync(`${FIXTURES}/invalid-for-wink-debug/25b995b7-9e4d-5d55-9ddb-a076e372c5bf.jsonl`, "utf8").trimEnd();
    const snapshot = loaded(parseSnapshotLine(text, 1));
    expect(snapshot.slices[0]).toMatchObject({ sliceType: "acme_private_types:Secret", displayName: "Secret" });
    expect(snapshot.slices[0]?.items).toEqual([{ __type__: "acme_private_types:Secret", value: "hidden" }]);
    expect(snapshot.validationErrors).toEqual([]);
  });

  it("reports a line without a session_id tag as an error line", () => {
    const text = readFileSync(`${FIXTURES}/invalid-for-wink-debug/missing-session-id.jsonl`, "utf8").trimEnd();
    const result = parseSnapshotLine(text, 1);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatchObject({ lineNumber: 1, kind: "envelope", reason: expect.stringContaining("session_id") });
  });
});

describe("envelope rules", () => {
  it.each([
    [{ version: 1 }, "version must be a string"],
    [{ created_at: null }, "created_at must be a string"],
    [{ parent_id: 5 }, "parent_id must be a string or null"],
    [{ children_ids: ["a", 2] }, "children_ids must be a list of strings"],
    [{ slices: {} }, "slices must be a list"],
    [{ slices: [1] }, "slice 0 must be an object"],
    [{ slices: [{ slice_type: 3, items: [] }] }, "slice 0: slice_type and item_type must be strings"],
    [{ slices: [{ slice_type: "m:A", items: {} }] }, "slice 0 (A): items must be a list"],
    [{ slices: [{ slice_type: "m:A", items: [{}, "x"] }] }, "slice 0 (A): item 1 must be an object, found a string"],
    [{ tags: [] }, "tags must be an object"],
    [{ tags: { session_id: "s", n: 1 } }, 'tags must map strings to strings (tag "n" is a number)'],
    [{ tags: {} }, "tags.session_id is missing"],
    [{ tags: { session_id: "" } }, "tags.session_id must be a non-empty string"],
  ])("refuses %j: %s", (overrides, reason) => {
    expect(refused(parseSnapshotLine(line(envelope(overrides)), 7))).toContain(reason);
  });

  it("names the session of a line refused after its tags were read", () => {
    const result = parseSnapshotLine(line(envelope({ slices: [7] })), 2);
    expect(result.ok ? null : result.error).toEqual({ lineNumber: 2, kind: "envelope", reason: "slice 0 must be an object", sessionId: "s-1" });
  });

  it("applies WINK's defaults: parent_id, children_ids, slices, item_type and items may be absent", () => {
    const snapshot = loaded(parseSnapshotLine(line({ version: "1", created_at: "2024-01-15T10:30:00+00:00", tags: { session_id: "abc123" } }), 1));
    expect(snapshot).toMatchObject({ parentId: null, childrenIds: [], slices: [] });
    const spec = { version: "1", created_at: "2024-01-15T10:30:00+00:00", slices: [{ slice_type: "x.FilesystemSnapshotRef", items: [{ archive_path: "abc123.fs.zip" }] }], tags: { session_id: "abc123" } };
    expect(loaded(parseSnapshotLine(line(spec), 1)).slices[0]).toMatchObject({ itemType: "x.FilesystemSnapshotRef", displayName: "FilesystemSnapshotRef" });
    expect(loaded(parseSnapshotLine(line(envelope({ slices: [{ slice_type: "m:A" }] })), 1)).slices[0]?.items).toEqual([]);
  });

  it("keeps semantic problems as validation errors while the line loads", () => {
    const snapshot = loaded(parseSnapshotLine(line(envelope({ version: "2", created_at: "not a date", slices: [{ slice_type: "m:A", items: [{}] }, { slice_type: "m:A", items: [{}] }] })), 1));
    expect(snapshot.validationErrors).toEqual([
      'Snapshot schema version mismatch: expected "1", got "2"',
      'created_at is not an ISO-8601 timestamp: "not a date"',
      "slice type m:A appears 2 times",
    ]);
  });

  it("keeps tags with hostile names as own data", () => {
    const snapshot = loaded(parseSnapshotLine('{"version": "1", "created_at": "2024-01-15", "tags": {"session_id": "s", "__proto__": "x", "constructor": "y"}}', 1));
    expect(Object.getOwnPropertyDescriptor(snapshot.tags, "__proto__")?.value).toBe("x");
    expect(snapshot.tags.constructor).toBe("y");
    expect(Object.getPrototypeOf(snapshot.tags)).toBe(Object.prototype);
  });

  it("reads NaN and big integers inside items (the Python-JSON layer underneath)", () => {
    const text = line(envelope({ slices: [{ slice_type: "m:A", items: [{ id: 2n ** 64n + 1n, score: Number.NaN }] }] }));
    expect(text).toContain('"id": 18446744073709551617, "score": NaN');
    const item = loaded(parseSnapshotLine(text, 1)).slices[0]?.items[0] as JsonObject;
    expect(item.id).toBe(18446744073709551617n);
    expect(item.score).toBeNaN();
  });
});

describe("parseJsonLine", () => {
  it("requires a JSON object and reports the line number", () => {
    expect(parseJsonLine("[]", 12)).toEqual({ ok: false, error: { lineNumber: 12, kind: "json", reason: "Expected a JSON object, found an array" } });
    expect(parseJsonLine('"s"', 1)).toMatchObject({ ok: false, error: { reason: "Expected a JSON object, found a string" } });
    expect(parseJsonLine("{", 4)).toMatchObject({ ok: false, error: { lineNumber: 4, kind: "json", reason: expect.stringContaining("column 2") } });
  });
});

describe("type names and kinds", () => {
  it("takes the part after the last ':' or '.'", () => {
    expect(displayName("a.b.c:Foo")).toBe("Foo");
    expect(displayName("a.b.Foo")).toBe("Foo");
    expect(displayName("weakincentives.runtime.events._types:ToolInvoked")).toBe("ToolInvoked");
    expect(displayName("__main__:Outer.Inner")).toBe("Inner");
    expect(displayName("Plain")).toBe("Plain");
    expect(displayName("trailing:")).toBe("trailing:");
  });

  it("calls an item an event when it has both event_id and created_at", () => {
    expect(isEventItem({ event_id: "e", created_at: "t" })).toBe(true);
    expect(isEventItem({ event_id: "e" })).toBe(false);
    expect(isEventItem({ created_at: "t" })).toBe(false);
    expect(isEventItem(JSON.parse('{"__proto__": {"event_id": 1, "created_at": 2}}') as JsonObject)).toBe(false);
    expect(sliceKindOf([])).toBe("state");
    expect(sliceKindOf([{ event_id: "e", created_at: "t" }, {}])).toBe("event");
  });
});
