import { describe, expect, it } from "vitest";
import { applyPatch, panelPatch, parseViewState, selectSnapshotPatch, selectedRef, serializeViewState, viewPatch } from "./view-state.js";
import type { ViewState } from "./view-state.js";

describe("view state in the URL", () => {
  it("round-trips every field", () => {
    const state: ViewState = {
      file: "run 1/a&b.jsonl",
      line: 3,
      view: "compare",
      slice: "m:ToolInvoked",
      item: 0,
      path: "src/ü & ?.py",
      at: 12,
      base: { file: "x.jsonl", line: 1 },
      layout: "unified",
      q: "a=b&c",
      event: 7,
      change: "docs/a b.md",
      side: "base",
      regex: true,
      panel: "logs",
      entry: 41,
      time: "2026-11-26T05:45:35+00:00",
      facets: [
        { facet: "level", value: "ERROR", include: true },
        { facet: "logger", value: "a,b:c%d", include: false },
      ],
    };
    expect(parseViewState(serializeViewState(state))).toEqual(state);
  });

  it("writes facet filters as name:value lists, values escaped, and drops malformed ones", () => {
    expect(serializeViewState({ view: "panel", panel: "logs", facets: [{ facet: "level", value: "ERROR", include: true }, { facet: "event", value: "a,b", include: false }] }).get("facets")).toBe("level:ERROR,!event:a%2Cb");
    expect(parseViewState(new URLSearchParams("facets=level:ERROR,nocolon,:x,!event:%E0%A4%A")).facets).toEqual([{ facet: "level", value: "ERROR", include: true }]);
    expect(parseViewState(new URLSearchParams("facets=garbage")).facets).toBeUndefined();
    expect(parseViewState(new URLSearchParams("entry=0")).entry).toBeUndefined();
  });

  it("opening a panel or a view leaves the previous panel's row, time and filters behind", () => {
    const inLogs: ViewState = { view: "panel", panel: "logs", file: "b.zip", line: 2, entry: 40, time: "t", q: "x", facets: [{ facet: "level", value: "ERROR", include: true }] };
    expect(applyPatch(inLogs, panelPatch("transcript", { entry: 7 }))).toEqual({ view: "panel", panel: "transcript", file: "b.zip", line: 2, entry: 7 });
    expect(applyPatch(inLogs, viewPatch("timeline"))).toEqual({ view: "timeline", file: "b.zip", line: 2, q: "x" });
  });

  it("ignores malformed and unknown parameters, defaulting the view", () => {
    const state = parseViewState(new URLSearchParams("file=a.jsonl&line=0&view=evil&item=-1&at=1e3&base_file=b.jsonl&layout=3d&x=1"));
    expect(state).toEqual({ view: "run", file: "a.jsonl" });
    expect(selectedRef(state)).toBeNull();
  });

  it("leaves the default view out of the URL", () => {
    expect(serializeViewState({ view: "run", file: "f", line: 1 }).toString()).toBe("file=f&line=1");
  });

  it("selecting another snapshot keeps view, slice and path, drops item, event (and its open change) and line", () => {
    const next = applyPatch({ view: "files", file: "a", line: 1, path: "p", at: 9, item: 2, event: 3, change: "p", slice: "s" }, selectSnapshotPatch({ file: "b", line: 4 }));
    expect(next).toEqual({ view: "files", file: "b", line: 4, path: "p", slice: "s" });
  });
});
