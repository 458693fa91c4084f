/** Search across the selected snapshot's slices and workspace files; a hit opens where it is. */
import { useEffect, useRef, useState } from "react";
import { visibleText } from "../slices/json-model.js";
import type { SearchHitResponse, SearchScope, SnapshotRef } from "../../api/api.js";
import { EmptyState, ErrorState, Spinner } from "../../components/feedback.js";
import { formatBytes, plural } from "../../components/format.js";
import { Icon } from "../../components/Icon.js";
import { useSearch } from "../../queries/hooks.js";
import { useKeymap } from "../../state/shortcuts.js";
import { useNavigate } from "../../state/url-store.js";

function Snippet({ text, query }: { text: string; query: string }) {
  const at = text.toLowerCase().indexOf(query.toLowerCase());
  if (at === -1 || query === "") return <>{text}</>;
  return (
    <>
      {text.slice(0, at)}
      <mark>{text.slice(at, at + query.length)}</mark>
      {text.slice(at + query.length)}
    </>
  );
}

export function SearchView({ snapshot, query }: { snapshot: SnapshotRef; query: string | undefined }) {
  const navigate = useNavigate();
  const [text, setText] = useState(query ?? "");
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
  const results = useSearch(snapshot, query ?? "", scope);
  useKeymap({ "/": () => input.current?.focus() });

  const open = (hit: SearchHitResponse) => {
    if (hit.kind === "slice") navigate({ view: "slices", slice: hit.slice_type, item: hit.item_index });
    else navigate({ view: "files", path: hit.path, at: hit.line > 0 ? hit.line : undefined });
  };
  const sliceHits = results.data?.hits.filter((hit) => hit.kind === "slice") ?? [];
  const fileHits = results.data?.hits.filter((hit) => hit.kind === "file") ?? [];

  return (
    <section className="search-view" aria-label="Search">
      <div className="card search-bar">
        <Icon name="search" />
        <input ref={input} type="search" placeholder="Search slices and files of this snapshot" value={text} onChange={(event) => setText(event.target.value)} aria-label="Search text" data-testid="search-input" />
        <div className="segmented" role="group" aria-label="Where">
          {(["all", "slices", "files"] as const).map((value) => (
            <button key={value} type="button" className={scope === value ? "is-on" : ""} aria-pressed={scope === value} onClick={() => setScope(value)}>
              {value === "all" ? "Everywhere" : value === "slices" ? "Slices" : "Files"}
            </button>
          ))}
        </div>
      </div>
      {query === undefined ? (
        <EmptyState title="Type to search">Case-insensitive text, across every slice item and every workspace file of the selected snapshot.</EmptyState>
      ) : results.isPending ? (
        <Spinner label="Searching…" />
      ) : results.isError ? (
        <ErrorState error={results.error} title="Search failed" />
      ) : results.data.hits.length === 0 ? (
        <EmptyState title={`Nothing matches "${query}".`} />
      ) : (
        <div className="search-results" data-testid="search-results">
          <p className="muted small">
            {plural(results.data.hits.length, "match", "matches")}
            {results.data.truncated ? " (stopped early: refine the query)" : ""} · {plural(results.data.scanned_files, "file")} read ({formatBytes(results.data.scanned_bytes)})
          </p>
          <HitGroup title="In slices" hits={sliceHits} query={query} onOpen={open} />
          <HitGroup title="In files" hits={fileHits} query={query} onOpen={open} />
        </div>
      )}
    </section>
  );
}

/** Where a hit is: the slice, item and JSON path, or the file and line. */
function hitWhere(hit: SearchHitResponse): string {
  if (hit.kind === "slice") return `${hit.display_name} · item ${hit.item_index + 1} · ${hit.json_path}`;
  return `${hit.path}${hit.line > 0 ? `:${hit.line}` : " (name)"}`;
}

function HitGroup({ title, hits, query, onOpen }: { title: string; hits: readonly SearchHitResponse[]; query: string; onOpen: (hit: SearchHitResponse) => void }) {
  if (hits.length === 0) return null;
  return (
    <div className="card">
      <h3>{title}</h3>
      <ul className="hit-list">
        {hits.map((hit, index) => (
          <li key={index}>
            <button type="button" className="hit" onClick={() => onOpen(hit)} data-testid="search-hit">
              <span className="hit-where mono">{hitWhere(hit)}</span>
              <span className="hit-snippet mono">
                <Snippet text={visibleText(hit.snippet)} query={query} />
              </span>
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
