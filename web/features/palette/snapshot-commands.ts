/**
 * The palette's snapshot entries: each named as a reader names it (the session's agent and
 * the turn the line closes, `shop-fixer · turn 16 · turn-16.fs.zip`), with a short id, the
 * file and the local time beside it; the open run's first. The full session id stays
 * searchable without being shown.
 */
import type { RunResponse, SnapshotRef } from "../../api/api.js";
import { formatLocalTime, shortId } from "../../components/format.js";
import { sessionSnapshots } from "../sessions/snapshot-list.js";
import type { SnapshotEntry } from "../sessions/snapshot-list.js";

export interface SnapshotChoice {
  readonly entry: SnapshotEntry;
  readonly title: string;
  readonly subtitle: string;
  /** Matched by the palette's filter, not shown: the full session id and the raw time. */
  readonly keywords: string;
}

/**
 * The session's readable name: its `agent` (or `app`, `name`) tag, else the title the run
 * list gives it (its first prompt's name, as WINK's sessions without tags have), else its
 * short id.
 */
export function sessionName(entry: Pick<SnapshotEntry, "tags" | "sessionId">, title: string | null = null): string {
  const tagged = entry.tags.agent ?? entry.tags.app ?? entry.tags.name;
  if (tagged !== undefined && tagged !== "") return tagged;
  return title !== null && title !== "" ? title : shortId(entry.sessionId);
}

export function snapshotChoices(entries: readonly SnapshotEntry[], run: RunResponse | undefined): SnapshotChoice[] {
  const labels = new Map<string, string>();
  const titles = new Map<string, string | null>();
  if (run !== undefined)
    for (const session of run.sessions) {
      titles.set(session.session_id, session.title);
      for (const snapshot of session.snapshots) labels.set(`${run.source.path}\n${snapshot.line_number}`, snapshot.label);
    }
  const choice = (entry: SnapshotEntry): SnapshotChoice => {
    const label = labels.get(`${entry.file}\n${entry.line}`);
    const title = entry.file === run?.source.path ? (titles.get(entry.sessionId) ?? null) : null;
    return {
      entry,
      title: `${sessionName(entry, title)} · ${label ?? `line ${entry.line}`}`,
      subtitle: `${shortId(entry.sessionId)} · ${formatLocalTime(entry.createdAt)} · line ${entry.line} of ${entry.fileName}`,
      keywords: `${entry.sessionId} ${entry.createdAt}`,
    };
  };
  const own = run === undefined ? [] : entries.filter((entry) => entry.file === run.source.path);
  const others = entries.filter((entry) => run === undefined || entry.file !== run.source.path);
  return [...own, ...others].map(choice);
}

/** The snapshot before `selected` in its session (what "Compare with the previous turn" compares with), or null. */
export function previousInSession(run: RunResponse | undefined, selected: SnapshotRef | null): SnapshotRef | null {
  if (selected === null) return null;
  const order = sessionSnapshots(run, selected);
  const at = order.findIndex((ref) => ref.line === selected.line);
  return at > 0 ? (order[at - 1] ?? null) : null;
}
