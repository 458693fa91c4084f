// @vitest-environment happy-dom
// The sidebar counts runs as the eval does (issue 30): beside WINK's two session files, a
// `truth.json` (a JSON document with no session line) is listed apart and not counted as a
// run; with no current file (the eval view) no run is marked. Answered by a real LocalApi
// over the real fixture bytes.
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WINK_BUNDLE_FIXTURES, WINK_FIXTURES } from "../../../fixtures/paths.js";
import { ApiProvider } from "../../api/context.js";
import { LocalApi } from "../../api/local-api.js";
import type { LocalInput } from "../../api/local-api.js";
import { RunsPanel } from "./RunsPanel.js";

afterEach(() => cleanup());

async function winkRunsAndTruth(): Promise<{ inputs: LocalInput[]; runs: string[] }> {
  const runs = (await readdir(WINK_FIXTURES)).filter((name) => name.endsWith(".jsonl")).sort();
  const inputs = await Promise.all(runs.map(async (name) => ({ path: name, bytes: new Uint8Array(await readFile(path.join(WINK_FIXTURES, name))) })));
  inputs.push({ path: "truth.json", bytes: new Uint8Array(await readFile(path.join(WINK_BUNDLE_FIXTURES, "index.json"))) });
  return { inputs, runs };
}

function renderPanel(api: LocalApi, currentFile: string | null): void {
  render(
    <ApiProvider api={api}>
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <RunsPanel selected={null} currentFile={currentFile} />
      </QueryClientProvider>
    </ApiProvider>,
  );
}

describe("the sidebar's run count", () => {
  it("counts the runs as the eval does: a truth.json beside them is another file, not a run", async () => {
    const { inputs, runs } = await winkRunsAndTruth();
    const api = LocalApi.open(inputs, "wink");
    const evalRuns = (await api.ask.failures({})).outcomes.runs;
    expect(evalRuns).toBe(runs.length);
    renderPanel(api, null);
    await waitFor(() => expect(screen.getByTestId("runs-count").textContent).toBe(`wink · ${evalRuns} runs · 1 other file`));
    expect(screen.getAllByTestId("run-row")).toHaveLength(runs.length);
    expect(screen.getByTestId("not-session").textContent).toBe("truth.json · not a session file");
    // No current file (the eval view): no row is marked.
    expect(document.querySelectorAll('[aria-current], .is-current')).toHaveLength(0);
  });

  it("marks the current run, and only it", async () => {
    const { inputs, runs } = await winkRunsAndTruth();
    const current = runs[0] ?? "";
    renderPanel(LocalApi.open(inputs, "wink"), current);
    await waitFor(() => expect(screen.getAllByTestId("run-row")).toHaveLength(runs.length));
    const marked = [...document.querySelectorAll('[data-testid="run-row"][aria-current="page"]')].map((row) => row.getAttribute("title"));
    expect(marked).toEqual([current]);
  });

  it("says one run beside a truth.json: the landing of opened files stays on the run", async () => {
    const { inputs, runs } = await winkRunsAndTruth();
    const api = LocalApi.open(inputs.filter((input) => input.path !== runs[1]), "wink");
    const page = await api.ask.runs({ limit: 1 });
    expect({ total: page.total, not_sessions: page.not_sessions }).toEqual({ total: 2, not_sessions: { total: 1, matched: 1 } });
    renderPanel(api, null);
    await waitFor(() => expect(screen.getByTestId("runs-count").textContent).toBe("wink · 1 run · 1 other file"));
    // One run: no filter to offer.
    expect(screen.queryByTestId("run-filter")).toBeNull();
  });
});
