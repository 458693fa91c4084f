/**
 * A run of one session of `lines` snapshot lines (`long.jsonl`), as `/api/run` builds it before
 * it leaves anything out: what the overview's and the sidebar's tests of left-out turns and
 * snapshots cut down with `boundedRun`. With `turns`, each line is a turn (`turn N`); without,
 * the session has none (`snapshot N`).
 */
import { boundedRun, runSessionPage } from "../../../shared/viewer/index.js";
import type { RunSessionView, RunView } from "../../../shared/viewer/index.js";
import type { Api } from "../../api/api.js";

export const longRunTime = (n: number): string => new Date(Date.parse("2026-11-22T01:00:00Z") + n * 1000).toISOString();

export function longRun(lines: number, turns: boolean): RunView {
  const time = longRunTime;
  const stats = { outcome: "ok" as const, failed_calls: 0, errors: 0, tool_calls: 0, events: 0, started_at: time(0), ended_at: time(lines), duration_ms: lines * 1000 };
  const session: RunSessionView = {
    session_id: "s-0",
    parent_session_id: null,
    depth: 0,
    title: "agent",
    latest_line: lines,
    validation_error: null,
    stats,
    turn_source: turns ? "snapshots" : "none",
    turns: turns ? Array.from({ length: lines }, (_, n) => ({ number: n + 1, started_at: time(n), ended_at: time(n + 1), first_event: null, last_event: null, prompt: null, events: 0, tool_calls: 0, failed_calls: 0, errors: 0, snapshot_line: n + 1 })) : [],
    snapshots: Array.from({ length: lines }, (_, n) => ({ line_number: n + 1, created_at: time(n + 1), turn: turns ? n + 1 : null, archive: null, label: turns ? `turn ${n + 1}` : `snapshot ${n + 1}`, latest: n === lines - 1 })),
    spawned: null,
    children: [],
    missing_children: [],
  };
  return {
    source: { kind: "session_file", path: "long.jsonl", name: "long.jsonl" },
    title: "agent",
    root_session_id: "s-0",
    modified_at: time(0),
    state: "ready",
    problem: null,
    stats,
    session_count: 1,
    snapshot_count: lines,
    load_errors: 0,
    error: null,
    panels: [],
    sessions: [session],
    failures: [],
  };
}

/**
 * An `Api` that answers `/api/run` with `whole` cut down as the server cuts it and
 * `/api/run/session` with its pages, recording each page asked for in `asked`.
 */
export function longRunApi(whole: RunView, asked: { offset: number; limit: number }[]): Api {
  return {
    kind: "http",
    label: "test",
    ask: {
      run: () => Promise.resolve(boundedRun(whole)),
      runSession: ({ session, offset, limit }: { session: string; offset: number; limit: number }) => {
        asked.push({ offset, limit });
        const page = runSessionPage(whole, session, offset, limit);
        return page === null ? Promise.reject(new Error("no such session")) : Promise.resolve(page);
      },
      diff: () => new Promise(() => {}),
    },
  } as unknown as Api;
}
