/**
 * Search across a run: every snapshot of a session and of the sessions it started. A
 * session's latest line holds its whole history, so its slices are searched once, event hits
 * grouped by the turn they happened in and state hits on their own; each snapshot's workspace
 * is searched for the files that changed since the session's previous snapshot (a file is
 * searched once per content), its hits grouped under that snapshot and its turn.
 */
import type { SessionSnapshot } from "../session/snapshot-line.js";
import type { FileSource } from "./file-source.js";
import { searchSlices } from "../session/event-loop-slices.js";
import { searchFile, searchItem } from "./search.js";
import { createMatcher } from "./text-matcher.js";
import type { RunSearchGroupView, RunSearchView, SearchHitView, SearchSkippedFileView, TimelineEventView, TurnView } from "./types.js";

export interface RunSearchSession {
  readonly sessionId: string;
  readonly latestLine: number;
  /** The latest line, parsed. */
  readonly snapshot: SessionSnapshot;
  readonly events: readonly TimelineEventView[];
  readonly turns: readonly TurnView[];
  /** The session's snapshots with a workspace, oldest first. */
  readonly workspaces: readonly { readonly lineNumber: number; readonly turn: number | null; readonly label: string; readonly source: () => Promise<FileSource | null> }[];
}

export interface RunSearchOptions {
  regex?: boolean;
  compileRegex?: (source: string) => RegExp;
  /** Most hits (default 500). */
  maxHits?: number;
  /** Most file bytes read (default 64 MiB). */
  maxBytes?: number;
  maxFileBytes?: number;
  /** Time budget (default 4,000 ms). */
  timeoutMs?: number;
  now?: () => number;
}

export async function searchRun(sessions: readonly RunSearchSession[], query: string, options: RunSearchOptions = {}): Promise<RunSearchView> {
  const now = options.now ?? (() => Date.now());
  const deadline = now() + (options.timeoutMs ?? 4000);
  const maxHits = options.maxHits ?? 500;
  const matcher = createMatcher(query, { regex: options.regex ?? false, ...(options.compileRegex === undefined ? {} : { compile: options.compileRegex }) });
  const view: RunSearchView = { query, regex: matcher.regex, groups: [], hit_count: 0, truncated: false, snapshots_searched: 0, scanned_files: 0, scanned_bytes: 0, skipped_files: [] };
  if (query === "") return view;
  const budget = { maxBytes: options.maxBytes ?? 64 * 1024 * 1024, maxFileBytes: options.maxFileBytes ?? 4 * 1024 * 1024 };
  const full = () => {
    if (view.hit_count >= maxHits || now() > deadline) view.truncated = true;
    return view.truncated;
  };
  const pacing = { pacer: searchSlices(), stop: () => now() > deadline };
  const groups = new Map<string, RunSearchGroupView>();
  const group = (key: string, make: () => Omit<RunSearchGroupView, "hits">): RunSearchGroupView => {
    let found = groups.get(key);
    if (found === undefined) {
      found = { ...make(), hits: [] };
      groups.set(key, found);
      view.groups.push(found);
    }
    return found;
  };

  for (const session of sessions) {
    if (full()) break;
    const turnOfItem = new Map<string, number | null>();
    for (const event of session.events) {
      const turn = session.turns.find((candidate) => candidate.first_event !== null && candidate.last_event !== null && event.index >= candidate.first_event && event.index <= candidate.last_event);
      turnOfItem.set(`${event.slice_type}\n${event.item_index}`, turn?.number ?? null);
    }
    for (const slice of session.snapshot.slices) {
      for (let index = 0; index < slice.items.length; index++) {
        await pacing.pacer.pace();
        if (full()) break;
        const hits: SearchHitView[] = [];
        searchItem(slice, index, matcher, hits, maxHits - view.hit_count);
        if (hits.length === 0) continue;
        const isEvent = slice.kind === "event" && turnOfItem.has(`${slice.sliceType}\n${index}`);
        const turn = isEvent ? (turnOfItem.get(`${slice.sliceType}\n${index}`) ?? null) : null;
        const target = isEvent
          ? group(`${session.sessionId}\nevents\n${turn}`, () => ({ session_id: session.sessionId, line_number: session.latestLine, turn, scope: "events", label: turn === null ? "events" : `turn ${turn} · events` }))
          : group(`${session.sessionId}\nstate`, () => ({ session_id: session.sessionId, line_number: session.latestLine, turn: null, scope: "state", label: "latest state" }));
        target.hits.push(...hits);
        view.hit_count += hits.length;
      }
    }
    const seen = new Set<string>();
    const seenSources = new Set<FileSource>();
    for (const workspace of session.workspaces) {
      if (full()) break;
      const source = await workspace.source();
      if (source === null || seenSources.has(source)) continue;
      seenSources.add(source);
      view.snapshots_searched += 1;
      const hits: SearchHitView[] = [];
      let spent = false;
      for (const entry of await source.list()) {
        const key = `${entry.path}\n${entry.size}\n${String(entry.fingerprint)}`;
        if (seen.has(key)) continue;
        seen.add(key);
        if (view.hit_count + hits.length >= maxHits || now() > deadline) {
          view.truncated = true;
          break;
        }
        const skip = (skipped: SearchSkippedFileView) => view.skipped_files.push({ ...skipped, session_id: session.sessionId, line_number: workspace.lineNumber });
        if (!(await searchFile(source, entry, matcher, hits, maxHits - view.hit_count, budget, view, skip, pacing))) {
          spent = true;
          break;
        }
      }
      if (hits.length > 0) {
        const target = group(`${session.sessionId}\nfiles\n${workspace.lineNumber}`, () => ({ session_id: session.sessionId, line_number: workspace.lineNumber, turn: workspace.turn, scope: "files", label: workspace.label }));
        target.hits.push(...hits);
        view.hit_count += hits.length;
      }
      if (spent) break;
    }
  }
  full();
  // A string matched only in its first part (see MAX_REGEX_INPUT) makes the answer partial, not the search shorter.
  if (matcher.clippedInputs > 0) view.truncated = true;
  return view;
}
