/**
 * Search across every snapshot of the selected session and the sessions it started (a
 * substring, or a regular expression), hits grouped by turn and snapshot; or, narrower, the
 * selected snapshot alone. A hit opens where it is: an event in its timeline, a state item in
 * its slice, a file line in the snapshot that holds it.
 */
import { useEffect, useRef, useState } from "react";
import type { ReactNode } from "react";
import type { RunSearchGroupResponse, SearchHitResponse, SearchScope, SnapshotRef } from "../../api/api.js";
import { flag } from "../../api/api.js";
import { EmptyState, ErrorState, Spinner } from "../../components/feedback.js";
import { formatBytes, plural, shortId } from "../../components/format.js";
import { Icon } from "../../components/Icon.js";
import { useBundleGroups, useBundleSearch, useRun, useRunSearch, useSearch } from "../../queries/hooks.js";
import { useKeymap } from "../../state/shortcuts.js";
import { useNavigate } from "../../state/url-store.js";
import type { ViewPatch } from "../../state/view-state.js";
import { bundleLine } from "../../state/bundle-links.js";
import { BundleSearchHits } from "./BundleSearchHits.js";
import { sessionOfLine } from "../../state/run-links.js";
import { HitGroup as SharedHitGroup } from "../../components/HitGroup.js";

/** `bundles`: every debug bundle of the directory (a bundle's run only). */
type Where = "session" | "snapshot" | "bundles";

/** What a bundle's run adds to a search of its session: its logs, transcript and members. */
const BUNDLE_SCOPES = ["logs", "transcript", "members"] as const;

export function SearchView({ snapshot, query, regex }: { snapshot: SnapshotRef; query: string | undefined; regex: boolean }) {
  const navigate = useNavigate();
  const [text, setText] = useState(query ?? "");
  const [where, setWhere] = useState<Where>("session");
  const [scope, setScope] = useState<SearchScope>("all");
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => setText(query ?? ""), [query]);
  useEffect(() => {
    const trimmed = text.trim();
    if (trimmed === (query ?? "")) return;
    const timer = setTimeout(() => navigate({ q: trimmed === "" ? undefined : trimmed }, { replace: true }), 250);
    return () => clearTimeout(timer);
  }, [text, query, navigate]);
  useEffect(() => input.current?.focus(), []);
  useKeymap({ "/": () => input.current?.focus() });
  const run = useRun(snapshot.file);
  const session = run.data === undefined ? null : sessionOfLine(run.data.sessions, snapshot.line);
  const bundle = run.data?.source.kind === "bundle";
  const runResults = useRunSearch(where === "session" && run.data !== undefined ? snapshot.file : null, session?.session_id ?? null, query ?? "", regex);
  const snapshotResults = useSearch(where === "snapshot" && !regex ? snapshot : null, query ?? "", scope);
  // A bundle's session search also covers its logs, transcript and members; "every bundle" covers all of each bundle.
  const bundleResults = useBundleSearch(query ?? "", where === "bundles" ? { regex: flag(regex), limit: 500 } : { file: snapshot.file, in: "bundle", scope: BUNDLE_SCOPES, regex: flag(regex), limit: 300 }, bundle && where !== "snapshot");
  const groups = useBundleGroups(bundle && where === "bundles");
  const summaries = new Map((groups.data ?? []).flatMap((group) => group.bundles.map((entry) => [entry.path, entry] as const)));
  const results = where === "session" ? runResults : where === "bundles" ? bundleResults : snapshotResults;
  const bundleHits =
    bundle && where !== "snapshot" && bundleResults.data !== undefined && bundleResults.data.hits.length > 0 ? (
      <BundleSearchHits result={bundleResults.data} lineOf={(path) => (path === snapshot.file ? snapshot.line : bundleLine(summaries.get(path) ?? { session: { lines: [], default_line: null } }))} nameOf={(path) => summaries.get(path)?.name ?? path} query={query ?? ""} regex={regex} />
    ) : null;

  return (
    <section className="search-view" aria-label="Search">
      <div className="card search-bar">
        <Icon name="search" />
        <input
          ref={input}
          type="search"
          placeholder={where === "session" ? (bundle ? "Search this run: its session, files, logs, transcript and members" : "Search every snapshot of this session and its sub-agents") : where === "bundles" ? "Search every debug bundle of the directory" : "Search this snapshot's slices and files"}
          value={text}
          onChange={(event) => setText(event.target.value)}
          aria-label="Search text"
          data-testid="search-input"
        />
        <label className="check" title="Regular expression (linear-time: no backreferences or lookarounds; case-sensitive)">
          <input type="checkbox" checked={regex} onChange={(event) => navigate({ regex: event.target.checked ? true : undefined }, { replace: true })} data-testid="search-regex" /> regex
        </label>
        <div className="segmented" role="group" aria-label="Where">
          <button type="button" className={where === "session" ? "is-on" : ""} aria-pressed={where === "session"} onClick={() => setWhere("session")}>
            Whole session
          </button>
          <button type="button" className={where === "snapshot" ? "is-on" : ""} aria-pressed={where === "snapshot"} onClick={() => setWhere("snapshot")}>
            This snapshot
          </button>
          {bundle ? (
            <button type="button" className={where === "bundles" ? "is-on" : ""} aria-pressed={where === "bundles"} onClick={() => setWhere("bundles")} data-testid="search-every-bundle">
              Every bundle
            </button>
          ) : null}
        </div>
        {where === "snapshot" ? (
          <div className="segmented" role="group" aria-label="In">
            {(["all", "slices", "files"] as const).map((value) => (
              <button key={value} type="button" className={scope === value ? "is-on" : ""} aria-pressed={scope === value} onClick={() => setScope(value)}>
                {value === "all" ? "Everywhere" : value === "slices" ? "Slices" : "Files"}
              </button>
            ))}
          </div>
        ) : null}
      </div>
      {query === undefined ? (
        <EmptyState title="Type to search">
          {where === "session" ? "Every snapshot of the selected session and of the sessions it started: events by turn, the latest state, and each snapshot's changed files." : "Case-insensitive text across the selected snapshot's slice items and files."}
        </EmptyState>
      ) : where === "snapshot" && regex ? (
        <EmptyState title="Regular expressions search the whole session">Switch to "Whole session", or turn regex off.</EmptyState>
      ) : results.isPending ? (
        <Spinner label="Searching…" />
      ) : results.isError ? (
        <ErrorState error={results.error} title="Search failed" />
      ) : where === "bundles" && bundleResults.data !== undefined ? (
        bundleResults.data.hits.length === 0 ? (
          <EmptyState title={`Nothing matches "${query}" in ${plural(bundleResults.data.scanned_bundles, "bundle")}.`} />
        ) : (
          <div className="search-results" data-testid="search-results">
            <p className="muted small">
              {plural(bundleResults.data.hits.length, "match", "matches")}
              {bundleResults.data.truncated ? " (stopped early: refine the query)" : ""} · {plural(bundleResults.data.scanned_bundles, "bundle")}
            </p>
            {bundleHits}
          </div>
        )
      ) : where === "session" && runResults.data !== undefined ? (
        <RunResults
          groups={runResults.data.groups}
          file={snapshot.file}
          query={query}
          regex={regex}
          summary={`${plural(runResults.data.hit_count + (bundle ? (bundleResults.data?.hits.length ?? 0) : 0), "match", "matches")}${runResults.data.truncated || (bundleResults.data?.truncated ?? false) ? " (stopped early: refine the query)" : ""} · ${plural(runResults.data.snapshots_searched, "snapshot")} · ${plural(runResults.data.scanned_files, "file")} read (${formatBytes(runResults.data.scanned_bytes)})${bundle ? " · logs, transcript and members" : ""}`}
          sessionTitle={(id) => run.data?.sessions.find((candidate) => candidate.session_id === id)?.title ?? shortId(id)}
          extra={bundle ? (bundleResults.isPending ? <Spinner label="Searching the logs and the transcript…" /> : bundleResults.isError ? <ErrorState error={bundleResults.error} title="Could not search the logs and the transcript" /> : bundleHits) : null}
        />
      ) : snapshotResults.data !== undefined ? (
        snapshotResults.data.hits.length === 0 ? (
          <EmptyState title={`Nothing matches "${query}".`} />
        ) : (
          <div className="search-results" data-testid="search-results">
            <p className="muted small">
              {plural(snapshotResults.data.hits.length, "match", "matches")}
              {snapshotResults.data.truncated ? " (stopped early: refine the query)" : ""} · {plural(snapshotResults.data.scanned_files, "file")} read ({formatBytes(snapshotResults.data.scanned_bytes)})
            </p>
            <HitGroup title="In slices" hits={snapshotResults.data.hits.filter((hit) => hit.kind === "slice")} query={query} regex={false} open={(hit) => hitPatch(hit, snapshot.file, snapshot.line)} />
            <HitGroup title="In files" hits={snapshotResults.data.hits.filter((hit) => hit.kind === "file")} query={query} regex={false} open={(hit) => hitPatch(hit, snapshot.file, snapshot.line)} />
          </div>
        )
      ) : null}
    </section>
  );
}

/** Where a hit opens: a slice item at its line, a file line in its snapshot. */
function hitPatch(hit: SearchHitResponse, file: string, line: number): ViewPatch {
  if (hit.kind === "slice") return { file, line, view: "slices", slice: hit.slice_type, item: hit.item_index };
  return { file, line, view: "files", path: hit.path, at: hit.line > 0 ? hit.line : undefined, base: undefined };
}

function RunResults({ groups, file, query, regex, summary, sessionTitle, extra }: { groups: readonly RunSearchGroupResponse[]; file: string; query: string; regex: boolean; summary: string; sessionTitle: (id: string) => string; extra: ReactNode }) {
  if (groups.length === 0 && extra === null) return <EmptyState title={`Nothing matches "${query}".`} />;
  return (
    <div className="search-results" data-testid="search-results">
      <p className="muted small">{summary}</p>
      {extra}
      {groups.map((group) => (
        <HitGroup
          key={`${group.session_id}:${group.scope}:${group.line_number}:${group.turn ?? ""}`}
          title={`${sessionTitle(group.session_id)} · ${group.label}`}
          hits={group.hits}
          query={query}
          regex={regex}
          open={(hit) => hitPatch(hit, file, group.line_number)}
          testId="search-group"
        />
      ))}
    </div>
  );
}

/** Where a hit is: the slice, item and JSON path, or the file and line. */
function hitWhere(hit: SearchHitResponse): string {
  if (hit.kind === "slice") return `${hit.display_name} · item ${hit.item_index + 1} · ${hit.json_path}`;
  return `${hit.path}${hit.line > 0 ? `:${hit.line}` : " (name)"}`;
}

function HitGroup({ title, hits, query, regex, open, testId }: { title: string; hits: readonly SearchHitResponse[]; query: string; regex: boolean; open: (hit: SearchHitResponse) => ViewPatch; testId?: string }) {
  return <SharedHitGroup title={title} items={hits.map((hit) => ({ to: open(hit), where: hitWhere(hit), snippet: hit.snippet }))} query={query} regex={regex} testId={testId} />;
}
