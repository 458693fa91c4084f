import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors.js";
import { pythonIsoTimestamp, Session, sessionTreeLines } from "./session-model.js";
import { parseSessionText } from "./session-text.js";
import { buildSessionTree } from "./session-tree.js";

const fixedClock = (): Date => new Date(Date.UTC(2026, 10, 22, 1, 32, 19, 511));

describe("Session", () => {
  it("snapshots like WINK: slices sorted by type id, empty ones left out, managed tags", () => {
    const session = new Session({ sessionId: "root", tags: { app: "demo" }, clock: fixedClock });
    session.append("weakincentives.runtime.events._types:ToolInvoked", { event_id: "e1", created_at: "t", name: "ls" });
    session.append("weakincentives.contrib.tools.planning:Plan", { objective: "ship" }, { itemType: "weakincentives.contrib.tools.planning:Plan" });
    session.replace("app:Empty", []);
    const snapshot = session.snapshot();
    expect(snapshot).toMatchObject({
      version: "1",
      createdAt: "2026-11-22T01:32:19.511000+00:00",
      parentId: null,
      childrenIds: [],
      sessionId: "root",
      tags: { app: "demo", session_id: "root" },
      lineNumber: 0,
      validationErrors: [],
    });
    expect(snapshot.slices.map((slice) => [slice.displayName, slice.kind, slice.items.length])).toEqual([
      ["Plan", "state", 1],
      ["ToolInvoked", "event", 1],
    ]);
    expect(session.sliceTypes()).toContain("app:Empty");
  });

  it("copies items when they are added, keeping hostile keys as data", () => {
    const session = new Session({ sessionId: "s" });
    const item: Record<string, unknown> = { list: [1, undefined], when: new Date(0), big: 2n ** 70n, skip: undefined };
    Object.defineProperty(item, "__proto__", { value: { polluted: true }, enumerable: true });
    session.append("m:Item", item);
    (item.list as unknown[]).push(99);
    const stored = session.latest("m:Item")!;
    expect(stored.list).toEqual([1, null]);
    expect(stored.when).toBe("1970-01-01T00:00:00.000Z");
    expect(stored.big).toBe(2n ** 70n);
    expect(Object.keys(stored)).toEqual(["list", "when", "big", "__proto__"]);
    expect(Object.getPrototypeOf(stored)).toBe(Object.prototype);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it("takes the item type from the first item's __type__ when not given", () => {
    const session = new Session({ sessionId: "s" });
    session.append("m:Slice", { __type__: "m:Item", v: 1 });
    expect(session.snapshot().slices[0]).toMatchObject({ sliceType: "m:Slice", itemType: "m:Item", itemDisplayName: "Item" });
  });

  it("refuses what WINK could not write", () => {
    const session = new Session({ sessionId: "s" });
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => session.append("m:A", cycle)).toThrow(InvalidArgumentError);
    expect(() => session.append("m:A", [1] as unknown as object)).toThrow(/must be plain objects/);
    expect(() => session.append("", {})).toThrow(InvalidArgumentError);
    expect(() => session.setTag("session_id", "other")).toThrow(/managed/);
    expect(() => new Session({ sessionId: "a", tags: { session_id: "b" } })).toThrow(/managed/);
    expect(session.items("m:A")).toEqual([]);
  });

  it("links children: parent_id, children_ids and parent_session_id", () => {
    const root = new Session({ sessionId: "root", clock: fixedClock });
    const child = root.createChild({ sessionId: "child" });
    const grandchild = child.createChild({ sessionId: "grandchild", tags: { agent: "scout" } });
    expect(root.snapshot().childrenIds).toEqual(["child"]);
    expect(child.snapshot()).toMatchObject({ parentId: "root", tags: { parent_session_id: "root", session_id: "child" } });
    expect(grandchild.tags).toEqual({ agent: "scout", parent_session_id: "child", session_id: "grandchild" });
    expect(grandchild.snapshot().createdAt).toBe("2026-11-22T01:32:19.511000+00:00");
    expect(() => grandchild.addChild(root)).toThrow(/own descendant/);
    expect(() => root.addChild(child)).toThrow(/already has a parent/);
    expect(() => root.addChild(root)).toThrow(/own descendant/);
  });

  it("defaults to a random UUID session id", () => {
    const a = new Session();
    expect(a.sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Session().sessionId).not.toBe(a.sessionId);
  });
});

describe("Session snapshots under an id (WINK's session.snapshot(id) / rollback(id))", () => {
  it("keeps a snapshot under its id and rolls the slices back to it, tags and children untouched", () => {
    const session = new Session({ sessionId: "s", tags: { app: "x" } });
    session.append("demo:Plan", { step: 1 });
    const taken = session.snapshot("turn-1");
    expect(session.savedSnapshot("turn-1")).toBe(taken);
    session.append("demo:Plan", { step: 2 });
    session.append("demo:Note", { text: "later" });
    const child = session.createChild({ sessionId: "c" });
    expect(session.rollback("turn-1")).toBe(taken);
    expect(session.items("demo:Plan")).toEqual([{ step: 1 }]);
    expect(session.items("demo:Note")).toEqual([]);
    expect(session.snapshot().slices).toEqual(taken.slices);
    expect(session.children).toEqual([child]);
    expect(session.tags).toEqual({ app: "x", session_id: "s" });
  });

  it("replaces a snapshot taken again under the same id, and refuses unknown and empty ids", () => {
    const session = new Session();
    session.append("demo:Plan", { step: 1 });
    session.snapshot({ id: "a" });
    session.snapshot("b");
    session.append("demo:Plan", { step: 2 });
    session.snapshot("a");
    expect(session.savedSnapshotIds()).toEqual(["b", "a"]);
    session.append("demo:Plan", { step: 3 });
    session.rollback("a");
    expect(session.items("demo:Plan")).toEqual([{ step: 1 }, { step: 2 }]);
    expect(() => session.rollback("missing")).toThrow(expect.objectContaining({ code: "E_SNAPSHOT_NOT_FOUND" }));
    expect(() => session.snapshot("")).toThrow(/non-empty/);
    expect(session.snapshot().tags.session_id).toBe(session.sessionId);
  });
});

describe("sessionTreeLines", () => {
  it("writes root first, then each child subtree in order, skipping sessions without items", () => {
    const root = new Session({ sessionId: "root", clock: fixedClock });
    root.append("m:A", { v: 1 });
    const first = root.createChild({ sessionId: "first" });
    first.append("m:A", { v: 2 });
    const idle = root.createChild({ sessionId: "idle" });
    idle.createChild({ sessionId: "under-idle" }).append("m:A", { v: 3 });
    root.createChild({ sessionId: "last" }).append("m:A", { v: 4 });

    const lines = sessionTreeLines(root);
    const { snapshots, errors } = parseSessionText(lines.join("\n"));
    expect(errors).toEqual([]);
    expect(snapshots.map((snapshot) => snapshot.sessionId)).toEqual(["root", "first", "under-idle", "last"]);
    expect(snapshots[0]?.childrenIds).toEqual(["first", "idle", "last"]);
    const tree = buildSessionTree(snapshots);
    expect(tree.roots.map((node) => [node.sessionId, node.missingChildren, node.children.map((child) => child.sessionId)])).toEqual([
      ["root", ["idle"], ["first", "last"]],
      ["under-idle", [], []],
    ]);
    expect(tree.roots[1]?.missingParentId).toBe("idle");
    expect(sessionTreeLines(new Session())).toEqual([]);
  });
});

describe("pythonIsoTimestamp", () => {
  it("matches datetime.isoformat(): microseconds only when non-zero", () => {
    expect(pythonIsoTimestamp(new Date(Date.UTC(2024, 0, 15, 10, 30, 0, 0)))).toBe("2024-01-15T10:30:00+00:00");
    expect(pythonIsoTimestamp(new Date(Date.UTC(2024, 0, 15, 10, 30, 0, 7)))).toBe("2024-01-15T10:30:00.007000+00:00");
    expect(() => pythonIsoTimestamp(new Date(Number.NaN))).toThrow(InvalidArgumentError);
  });
});
