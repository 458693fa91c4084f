// @vitest-environment happy-dom
// The snapshots `/api/run` leaves out of a long session (its `truncated`, issue 29 item 5) are
// said where they would be in the sidebar and listed on request from `/api/run/session`, a
// page at a time; before, the sidebar only said how many it did not list.
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { RUN_LIST_LIMIT, RUN_SESSION_PAGE_LIMIT } from "../../../shared/viewer/index.js";
import { ApiProvider } from "../../api/context.js";
import { RunSessions } from "./RunsPanel.js";
import { longRun, longRunApi } from "../run/long-run.test-support.js";

afterEach(() => cleanup());

const LEFT_OUT = RUN_SESSION_PAGE_LIMIT + 200;
const LINES = RUN_LIST_LIMIT + LEFT_OUT;

describe("the sidebar's snapshots of a session longer than the run lists", () => {
  it("says how many are not listed and lists them a page at a time, each button saying how many", async () => {
    const whole = longRun(LINES, false);
    const asked: { offset: number; limit: number }[] = [];
    const api = longRunApi(whole, asked);
    render(
      <ApiProvider api={api}>
        <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
          <RunSessions file="long.jsonl" selected={{ file: "long.jsonl", line: LINES }} />
        </QueryClientProvider>
      </ApiProvider>,
    );
    const half = RUN_LIST_LIMIT / 2;
    const omitted = await screen.findByTestId("omitted-snapshots");
    expect(omitted.textContent).toContain(`… 1,200 more snapshots not listed here`);
    expect(screen.getAllByTestId("snapshot-link")).toHaveLength(RUN_LIST_LIMIT);
    // Where they would be: between the first half and the last.
    const items = [...(omitted.parentElement?.children ?? [])];
    expect(items.indexOf(omitted)).toBe(half);

    const first = screen.getByTestId("more-snapshots");
    expect(first.tagName).toBe("BUTTON");
    expect(first.textContent).toBe("list the next 1,000");
    fireEvent.click(first);
    await waitFor(() => expect(screen.getAllByTestId("snapshot-link")).toHaveLength(RUN_LIST_LIMIT + RUN_SESSION_PAGE_LIMIT), { timeout: 10_000 });
    const second = screen.getByTestId("more-snapshots");
    expect(second.textContent).toBe("list all 200");
    expect(document.activeElement).toBe(second);
    fireEvent.click(second);
    await waitFor(() => expect(screen.queryByTestId("omitted-snapshots")).toBeNull(), { timeout: 10_000 });
    expect(asked).toEqual([
      { offset: half, limit: RUN_SESSION_PAGE_LIMIT },
      { offset: half + RUN_SESSION_PAGE_LIMIT, limit: 200 },
    ]);
    // Every snapshot once, in the session's order.
    expect(screen.getAllByTestId("snapshot-link").map((link) => Number(link.getAttribute("data-line")))).toEqual(Array.from({ length: LINES }, (_, n) => n + 1));
  });
});
