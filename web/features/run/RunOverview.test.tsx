// @vitest-environment happy-dom
// A long session's turns that `/api/run` leaves out (its `truncated`, issue 29 item 5) are
// said as such on the overview, counted in its facts, and listed on request from `/api/run/session`;
// so are a run's left-out failures (`truncated.failures`), a page of `/api/run/failures` at a time.
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { boundedRun, runFailurePage, RUN_FAILURE_LIMIT, RUN_FAILURE_PAGE_LIMIT, RUN_LIST_LIMIT } from "../../../shared/viewer/index.js";
import type { RunFailureView, RunView } from "../../../shared/viewer/index.js";
import type { Api } from "../../api/api.js";
import { ApiProvider } from "../../api/context.js";
import { RunOverview } from "./RunOverview.js";
import { longRun, longRunApi, longRunTime } from "./long-run.test-support.js";

afterEach(() => cleanup());

const TURNS = RUN_LIST_LIMIT + 30;
const time = longRunTime;
const { stats } = longRun(TURNS, true);

/** The overview of `long.jsonl` as the app draws it, answered by `api`. */
function renderOverview(api: Api): void {
  render(
    <ApiProvider api={api}>
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <RunOverview file="long.jsonl" />
      </QueryClientProvider>
    </ApiProvider>,
  );
}

describe("the run overview of a session longer than the run lists", () => {
  it("says how many turns are not listed and lists them on request", async () => {
    const whole = longRun(TURNS, true);
    const asked: { offset: number; limit: number }[] = [];
    const api = longRunApi(whole, asked);
    renderOverview(api);
    const omitted = await screen.findByTestId("omitted-turns");
    const half = RUN_LIST_LIMIT / 2;
    expect(omitted.textContent).toContain(`30 more turns (turns ${half + 1}–${half + 30}) not listed here`);
    expect(screen.getByText(`turn ${half}`)).toBeDefined();
    expect(screen.queryByText(`turn ${half + 1}`)).toBeNull();
    expect(screen.getByText(`turn ${TURNS}`)).toBeDefined();
    // The facts count every turn, not the listed ones.
    expect(screen.getByText(String(TURNS))).toBeDefined();

    fireEvent.click(screen.getByRole("button", { name: "list them" }));
    await waitFor(() => expect(screen.queryByTestId("omitted-turns")).toBeNull());
    expect(asked).toEqual([{ offset: half, limit: 30 }]);
    expect(screen.getByText(`turn ${half + 1}`)).toBeDefined();
    expect(screen.getByText(`turn ${half + 30}`)).toBeDefined();
    expect(screen.getAllByRole("row")).toHaveLength(TURNS + 1);
  });
});

const FAILURES = RUN_FAILURE_LIMIT + 1_234;

function failingRun(): RunView {
  const run = longRun(TURNS, true);
  const failure = (n: number): RunFailureView => ({
    session_id: "s-0",
    line_number: TURNS,
    event_index: n,
    slice_type: "ToolInvoked",
    item_index: n,
    transcript_rowid: null,
    kind: "tool_call",
    title: "read_file",
    call_id: `call_${n}`,
    argument: { name: "path", value: `f-${n}.py` },
    message: `No such file: f-${n}.py`,
    turn: 1,
    created_at: time(n),
    offset_ms: n * 1000,
  });
  const failed = { ...stats, outcome: "failed" as const, failed_calls: FAILURES, errors: FAILURES, tool_calls: FAILURES };
  return { ...run, stats: failed, failures: Array.from({ length: FAILURES }, (_, n) => failure(n)) };
}

describe("the run overview of a run of more failures than the run lists", () => {
  it("counts every failure and says how many are not listed, where they would be", async () => {
    const api = { kind: "http", label: "test", ask: { run: () => Promise.resolve(boundedRun(failingRun())), diff: () => new Promise(() => {}) } } as unknown as Api;
    renderOverview(api);
    const omitted = await screen.findByTestId("omitted-failures");
    const half = RUN_FAILURE_LIMIT / 2;
    expect(omitted.textContent).toContain(`and 1,234 more failures not listed here (failures ${half + 1}–1,484 of 1,734`);
    // The heading counts the run's failures, not the listed rows.
    expect(screen.getByRole("heading", { name: /Failures/ }).textContent).toContain("1,734");
    const rows = screen.getAllByTestId("failure-row");
    expect(rows).toHaveLength(RUN_FAILURE_LIMIT);
    // The gap sits between the first half and the last.
    const order = [...screen.getByTestId("failures").querySelectorAll("tbody tr")].map((row) => row.getAttribute("data-testid"));
    expect(order.indexOf("omitted-failures")).toBe(half);
    expect(screen.getByText(`No such file: f-${half - 1}.py`)).toBeDefined();
    expect(screen.queryByText(`No such file: f-${half}.py`)).toBeNull();
    expect(screen.getByText(`No such file: f-${FAILURES - 1}.py`)).toBeDefined();
  });

  it("lists the failures it left out a page at a time, each button saying how many, focus going on to the next", async () => {
    const whole = failingRun();
    const asked: { offset: number; limit: number }[] = [];
    const api = {
      kind: "http",
      label: "test",
      ask: {
        run: () => Promise.resolve(boundedRun(whole)),
        runFailures: ({ offset, limit }: { offset: number; limit: number }) => {
          asked.push({ offset, limit });
          return Promise.resolve(runFailurePage(whole, offset, limit));
        },
        diff: () => new Promise(() => {}),
      },
    } as unknown as Api;
    renderOverview(api);
    const half = RUN_FAILURE_LIMIT / 2;
    const page = RUN_FAILURE_PAGE_LIMIT;
    // Found by test id: a role query over 1,700 rows takes seconds in happy-dom.
    const first = await screen.findByTestId("more-failures");
    // Keyboard reachable: a real button in the row that says what is left out, and how many it lists.
    expect(first.tagName).toBe("BUTTON");
    expect(first.getAttribute("type")).toBe("button");
    expect(first.textContent).toBe(`list the next ${page}`);
    first.focus();
    fireEvent.click(first);
    await waitFor(() => expect(screen.getAllByTestId("failure-row")).toHaveLength(RUN_FAILURE_LIMIT + page), { timeout: 10_000 });
    expect(screen.getByText(`No such file: f-${half}.py`)).toBeDefined();
    expect(screen.getByText(`No such file: f-${half + page - 1}.py`)).toBeDefined();
    expect(screen.queryByText(`No such file: f-${half + page}.py`)).toBeNull();
    expect(screen.getByTestId("omitted-failures").textContent).toContain(`and 734 more failures not listed here (failures ${half + page + 1}–1,484 of 1,734`);
    const second = screen.getByTestId("more-failures");
    expect(second.textContent).toBe(`list the next ${page}`);
    expect(document.activeElement).toBe(second);

    fireEvent.click(second);
    await waitFor(() => expect(screen.getByTestId("more-failures").textContent).toBe("list all 234"), { timeout: 10_000 });
    const last = screen.getByTestId("more-failures");
    expect(document.activeElement).toBe(last);
    fireEvent.click(last);
    await waitFor(() => expect(screen.queryByTestId("omitted-failures")).toBeNull(), { timeout: 10_000 });
    expect(asked).toEqual([
      { offset: half, limit: page },
      { offset: half + page, limit: page },
      { offset: half + 2 * page, limit: 234 },
    ]);
    // Every failure once, in the run's order.
    const messages = screen.getAllByTestId("failure-row").map((row) => row.querySelector(".failure-message")?.textContent);
    expect(messages).toEqual(whole.failures.map((failure) => failure.message));
  });
});
