// The viewer reads the session data this library wrote before and writes now alike: the same
// scripted run, once as an earlier version recorded it (`fixtures/camel-case-run/`: tool values
// in camelCase, `FilesystemSnapshotRef` items without `__type__`) and once as it is recorded
// now (WINK's snake_case shapes with `__type__`), shows the same timeline and the same files.
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT_SESSION_ID, runAgentExample } from "../../examples/agent-run.js";
import type { WinkApp } from "../app.js";
import { cleanUp, get, tempDir, testApp } from "../server.test-support.js";

const OLD_RUN = fileURLToPath(new URL("./fixtures/camel-case-run", import.meta.url));
const FILE = `${ROOT_SESSION_ID}.jsonl`;
const TOOL_INVOKED = "weakincentives.runtime.events._types:ToolInvoked";

afterEach(cleanUp);

async function json(app: WinkApp, url: string): Promise<unknown> {
  const response = await get(app, url);
  expect(response.statusCode, url).toBe(200);
  return response.json();
}

/** What a user sees of each line: timeline events and the workspace's file tree. */
async function view(app: WinkApp): Promise<unknown[]> {
  const entries = (await json(app, `/api/entries?file=${FILE}`)) as { line_number: number }[];
  const seen: unknown[] = [];
  for (const { line_number: line } of entries) {
    const timeline = (await json(app, `/api/timeline?file=${FILE}&line=${line}`)) as { events: { title: string; summary: string | null; success: boolean | null; error: string | null }[]; tool_calls: unknown };
    const tree = await json(app, `/api/filesystem/tree?file=${FILE}&line=${line}`);
    seen.push({ line, events: timeline.events.map((e) => [e.title, e.summary, e.success, e.error]), toolCalls: timeline.tool_calls, tree });
  }
  return seen;
}

async function toolValues(app: WinkApp, line: number): Promise<Record<string, unknown>[]> {
  const slice = (await json(app, `/api/slices/${encodeURIComponent(TOOL_INVOKED)}?file=${FILE}&line=${line}`)) as { items: { value: unknown }[] };
  return slice.items.flatMap((item) => (Array.isArray(item.value) ? item.value : [item.value])).filter((value): value is Record<string, unknown> => typeof value === "object" && value !== null);
}

describe("session data in the old and the new shapes", () => {
  it("shows the same run the same way: timeline, tool-call outcomes, file trees", async () => {
    const fresh = await tempDir("wink-shapes-");
    await runAgentExample(fresh);
    const oldApp = await testApp({ path: OLD_RUN });
    const newApp = await testApp({ path: fresh });
    // The one change in the run itself: its glob pattern, rewritten for fnmatch semantics.
    const before = JSON.parse(JSON.stringify(await view(oldApp)).replaceAll("src/**/*.ts", "src/*.ts")) as unknown[];
    expect(before.length).toBe(4);
    expect(await view(newApp)).toEqual(before);

    // The two really differ in shape: camelCase values then, WINK's snake_case with __type__ now.
    const oldValues = await toolValues(oldApp, 3);
    const newValues = await toolValues(newApp, 3);
    expect(oldValues.some((value) => "totalLines" in value && !("__type__" in value))).toBe(true);
    expect(newValues.every((value) => typeof value.__type__ === "string")).toBe(true);
    expect(newValues.some((value) => value.__type__ === "weakincentives.filesystem._types:ReadResult" && "total_lines" in value)).toBe(true);
  });
});
