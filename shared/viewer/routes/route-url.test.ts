// routeUrl builds every request the web app sends from a route's table entry: what it puts in
// the path, what in the query string, and how it encodes both, as the server decodes them.
import { describe, expect, it } from "vitest";
import { VIEWER_ROUTES, joinList, logQueryOf, readLists, routeUrl, searchScopesOf, splitList } from "./index.js";

describe("routeUrl", () => {
  it("puts the query in the query string, in the order given, and leaves undefined values out", () => {
    expect(routeUrl(VIEWER_ROUTES.runs, {})).toBe("/api/runs");
    expect(routeUrl(VIEWER_ROUTES.runs, { offset: 0, limit: 50, q: undefined, since: "2026-11-01", until: undefined })).toBe("/api/runs?offset=0&limit=50&since=2026-11-01");
    expect(routeUrl(VIEWER_ROUTES.failures, {})).toBe("/api/failures");
  });

  it("encodes query values so that separators and non-ASCII text arrive as written", () => {
    const url = routeUrl(VIEWER_ROUTES.runSearch, { file: "runs/a b&c=d.jsonl", q: "100% ü+é #1?", regex: "1", limit: 5 });
    expect(url).toBe("/api/run/search?file=runs%2Fa+b%26c%3Dd.jsonl&q=100%25+%C3%BC%2B%C3%A9+%231%3F&regex=1&limit=5");
    const query = new URLSearchParams(url.slice(url.indexOf("?") + 1));
    expect(query.get("file")).toBe("runs/a b&c=d.jsonl");
    expect(query.get("q")).toBe("100% ü+é #1?");
  });

  it("puts a path parameter in its segment, encoded whole (a slash included)", () => {
    expect(routeUrl(VIEWER_ROUTES.slicePage, { slice_type: "app.models/Plan v2", file: "s.jsonl", line: 3, offset: 0, limit: 20 })).toBe(
      "/api/slices/app.models%2FPlan%20v2?file=s.jsonl&line=3&offset=0&limit=20",
    );
  });

  it("puts a wildcard in the rest of the path, each segment encoded and `/` kept as the separator", () => {
    expect(routeUrl(VIEWER_ROUTES.bundleFile, { "*": "filesystem/src/a b#1?.py", file: "bundles/x.zip" })).toBe("/api/files/filesystem/src/a%20b%231%3F.py?file=bundles%2Fx.zip");
    expect(routeUrl(VIEWER_ROUTES.fileContentAt, { "*": "ünï/cödé.txt" })).toBe("/api/filesystem/file/%C3%BCn%C3%AF/c%C3%B6d%C3%A9.txt");
  });

  it("refuses a request without a path parameter its route needs", () => {
    expect(() => routeUrl(VIEWER_ROUTES.slicePage, {} as never)).toThrow("/api/slices/:slice_type: the path parameter slice_type is missing");
  });

  it("writes an entry's list parameters as WINK's comma lists, an empty list as no filter", () => {
    expect(routeUrl(VIEWER_ROUTES.bundleLogs, { file: "b.zip", level: ["ERROR", "WARNING"], exclude_logger: [], logger: undefined, limit: 3 })).toBe("/api/logs?file=b.zip&level=ERROR%2CWARNING&limit=3");
    expect(routeUrl(VIEWER_ROUTES.bundleSearch, { q: "a,b", scope: ["logs", "members"] })).toBe("/api/bundles/search?q=a%2Cb&scope=logs%2Cmembers");
  });
});

describe("WINK's comma lists", () => {
  it("read back what joinList wrote, trimmed, with empty values and empty lists as no filter", () => {
    expect(splitList(joinList(["info", "warning"]))).toEqual(["info", "warning"]);
    expect(joinList([])).toBeUndefined();
    expect(splitList(" info , ,warning,")).toEqual(["info", "warning"]);
    expect(splitList(" , ")).toBeUndefined();
    expect(splitList(undefined)).toBeUndefined();
  });

  it("read a request's lists alike off the wire and from a caller in the page", () => {
    const wire = readLists(VIEWER_ROUTES.bundleTranscript, { entry_type: "tool_use, tool_result", source: "", search: "x" });
    const page = readLists(VIEWER_ROUTES.bundleTranscript, { entry_type: ["tool_use", " tool_result"], source: [], search: "x" });
    expect(wire).toEqual({ entry_type: ["tool_use", "tool_result"], search: "x" });
    expect(page).toEqual(wire);
    expect(logQueryOf({ level: "a,b", exclude_event: ["c"], at_line: 4 })).toEqual(logQueryOf({ level: ["a", "b"], exclude_event: "c", at_line: 4 }));
    expect(logQueryOf({ level: "a,b", at_line: 4 })).toMatchObject({ levels: ["a", "b"], atLine: 4, limit: null });
    expect(searchScopesOf({ scope: "logs,files" })).toEqual(["logs", "files"]);
  });
});
