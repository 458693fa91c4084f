/**
 * A bundle's transcript as a conversation: the prompt, the model's thinking and messages,
 * each tool call with its arguments and, under it, the result that answered it (failed
 * results marked), token usage and errors as quiet lines. Entries are fetched in pages and
 * virtualised; entry-type and source facets (include/exclude) and a search narrow it, all
 * in the URL. A failure of the run overview links here with the failing result selected.
 * J/K move between entries, / searches, Shift+G goes to the end.
 */
import { skipToken, useQuery } from "@tanstack/react-query";
import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useEffect, useMemo, useRef } from "react";
import type { TranscriptEntryResponse, TranscriptParams } from "../../api/bundle-api.js";
import { useApi } from "../../api/context.js";
import { EmptyState, ErrorState, Spinner } from "../../components/feedback.js";
import { formatTimestamp, plural } from "../../components/format.js";
import { Icon } from "../../components/Icon.js";
import { useTranscript, useTranscriptFacets } from "../../queries/hooks.js";
import { BUNDLE_PAGE_SIZE } from "../../queries/options.js";
import { routeQuery } from "../../queries/route-query.js";
import { useKeymap } from "../../state/shortcuts.js";
import { useNavigate } from "../../state/url-store.js";
import type { FacetFilter } from "../../state/view-state.js";
import { parsePythonJson } from "../../../shared/session/browser.js";
import { visibleText } from "../../components/json-model.js";
import { sanitizeHtml } from "../slices/sanitize.js";
import { TruncatedText } from "../slices/TruncatedText.js";
import { nestsToolResults, transcriptParams } from "./facet-filters.js";
import { FacetList, FacetsAside } from "./FacetList.js";
import { useRowNavigation } from "./row-navigation.js";
import { SearchField } from "./SearchField.js";
import { quietEntryText } from "./entry-text.js";
import { clockOf } from "./time-input.js";
import { ValueTree } from "./ValueTree.js";

export interface TranscriptPanelProps {
  readonly file: string;
  readonly filters: readonly FacetFilter[];
  readonly search: string | undefined;
  /** The selected entry's rowid. */
  readonly entry: number | undefined;
}

/** While results are drawn under their tool use, their own rows are left out of the list. */
function listParams(params: TranscriptParams, nested: boolean): TranscriptParams {
  return nested ? { ...params, exclude_entry_type: [...(params.exclude_entry_type ?? []), "tool_result"] } : params;
}

export function TranscriptPanel({ file, filters, search, entry }: TranscriptPanelProps) {
  const api = useApi();
  const navigate = useNavigate();
  const nested = nestsToolResults(filters, search);
  const params = useMemo(() => listParams(transcriptParams(filters, search), nested), [filters, search, nested]);
  const first = useTranscript(file, { ...params, offset: 0, limit: BUNDLE_PAGE_SIZE });
  const all = useTranscript(file, { offset: 0, limit: 1 });
  const facets = useTranscriptFacets(file);
  const scroller = useRef<HTMLDivElement>(null);
  const searchField = useRef<HTMLInputElement>(null);
  const total = first.data?.total ?? 0;

  // The selected entry; a result drawn under its tool use is found through that use.
  const target = useQuery(routeQuery(api, "bundleTranscript", entry === undefined ? skipToken : { file, at_rowid: entry, limit: 1 }));
  const targetEntry = target.data?.entries[0];
  const rowOf = nested && targetEntry?.entry_type === "tool_result" && targetEntry.paired_rowid !== null ? targetEntry.paired_rowid : entry;
  const landing = useQuery(routeQuery(api, "bundleTranscript", rowOf === undefined ? skipToken : { file, ...params, at_rowid: rowOf, limit: 1 }));
  const position = rowOf !== undefined && landing.data !== undefined ? landing.data.offset : null;

  const virtualizer = useVirtualizer({ count: total, getScrollElement: () => scroller.current, estimateSize: () => 96, overscan: 6 });
  useEffect(() => {
    // Only when the landing place changes (the virtualizer is one instance for the panel's life).
    if (position !== null && position < total) virtualizer.scrollToIndex(position, { align: "start" });
  }, [position, total, virtualizer]);

  const select = (rowid: number | undefined) => navigate({ entry: rowid }, { replace: true });
  const setFilters = (next: FacetFilter[]) => navigate({ facets: next.length === 0 ? undefined : next }, { replace: true });
  const rows = useRowNavigation((offset, limit) => routeQuery(api, "bundleTranscript", { file, ...params, offset, limit }), total, position, (found) => select(found.rowid), `${file}\n${JSON.stringify(params)}`);
  useKeymap({
    ...rows.keys,
    "/": () => searchField.current?.focus(),
  });

  const allCount = all.data?.total ?? 0;
  return (
    <div className="bundle-panel transcript-panel" data-testid="transcript-panel">
      <FacetsAside label="Transcript facets" counts={facets} errorTitle="Could not count the transcript's entry types">
        {(counts) => (
          <>
            <FacetList facet="entry_type" title="Entry types" values={counts.entry_types} filters={filters} onChange={setFilters} />
            {counts.sources.length > 1 ? <FacetList facet="source" title="Sources" values={counts.sources} filters={filters} onChange={setFilters} /> : null}
          </>
        )}
      </FacetsAside>
      <section className="panel-main" aria-label="Transcript entries">
        <header className="card panel-toolbar">
          <div className="panel-title-row">
            <h2>Transcript</h2>
            <span className="count-chip" data-testid="transcript-count">
              {all.data === undefined ? "…" : filters.length > 0 || search !== undefined ? `${plural(first.data?.total ?? 0, "row")} of ${plural(allCount, "entry", "entries")}` : plural(allCount, "entry", "entries")}
            </span>
            {nested ? <span className="muted small">tool results shown under their call</span> : null}
            {filters.length > 0 ? (
              <button type="button" className="mini-btn" onClick={() => setFilters([])}>
                Clear {plural(filters.length, "filter")}
              </button>
            ) : null}
          </div>
          <div className="toolbar">
            <SearchField inputRef={searchField} value={search} label="Search the transcript" placeholder="text in any entry" testId="transcript-search" />
          </div>
        </header>
        {first.isPending ? (
          <Spinner label="Reading the transcript…" />
        ) : first.isError ? (
          <ErrorState error={first.error} title="Could not read the transcript" onRetry={() => void first.refetch()} />
        ) : total === 0 ? (
          <EmptyState title={allCount === 0 ? "This bundle records no transcript." : "No entry matches."} />
        ) : (
          <div className="transcript-scroller" ref={scroller} tabIndex={0} aria-label={`${plural(total, "transcript entry", "transcript entries")}; J/K move`} data-testid="transcript-scroller">
            <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
              {virtualizer.getVirtualItems().map((row) => (
                <div key={row.key} data-index={row.index} ref={virtualizer.measureElement} className="transcript-slot" style={{ transform: `translateY(${row.start}px)` }}>
                  <TranscriptRow file={file} params={params} index={row.index} nested={nested} selected={entry} onSelect={select} />
                </div>
              ))}
            </div>
          </div>
        )}
      </section>
    </div>
  );
}

interface ToolCall {
  readonly name: string;
  readonly arguments: unknown;
}

function parsed(entry: TranscriptEntryResponse): Record<string, unknown> | null {
  if (entry.parsed === null) return null;
  try {
    const value = parsePythonJson(entry.parsed);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const objectOf = (value: unknown): Record<string, unknown> | null => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null);

/** The tool and arguments a `tool_use` names (a bridged WINK tool, or a Codex item). */
function toolCallOf(entry: TranscriptEntryResponse): ToolCall {
  const detail = parsed(entry);
  const notification = objectOf(detail?.notification);
  const item = objectOf(notification?.item);
  if (item !== null) return { name: entry.tool_name || String(item.type ?? "tool"), arguments: item };
  return { name: entry.tool_name || "tool", arguments: notification?.arguments ?? detail?.input ?? null };
}

/** What a tool result says: the text of a bridged tool's `contentItems`, a command's output, else the entry's content. */
function resultText(entry: TranscriptEntryResponse): string {
  const detail = parsed(entry);
  const result = objectOf(detail?.result);
  const items = result?.contentItems;
  if (Array.isArray(items)) {
    const texts = items.map((item) => objectOf(item)?.text).filter((text): text is string => typeof text === "string");
    if (texts.length > 0) return texts.join("\n");
  }
  const output = objectOf(objectOf(detail?.notification)?.item)?.aggregatedOutput;
  return typeof output === "string" && output !== "" ? output : entry.content;
}

/** Flat arguments (every value a string, number, boolean or null) as `name value` lines; anything else as a tree. */
function Arguments({ value, path }: { value: unknown; path: string }) {
  const object = objectOf(value);
  const flat = object !== null && Object.values(object).every((entry) => entry === null || ["string", "number", "boolean", "bigint"].includes(typeof entry));
  if (object === null || !flat) return <ValueTree value={value} label="arguments" path={path} depth={1} />;
  return (
    <dl className="argument-list">
      {Object.entries(object).map(([name, entry]) => (
        <div key={name} style={{ display: "contents" }}>
          <dt>{name}</dt>
          <dd>{visibleText(typeof entry === "string" ? entry : String(entry))}</dd>
        </div>
      ))}
    </dl>
  );
}

/** `ok`, `failed`, or null when the result does not say. */
function outcomeOf(entry: TranscriptEntryResponse): "ok" | "failed" | null {
  const detail = parsed(entry);
  const result = objectOf(detail?.result);
  const item = objectOf(objectOf(detail?.notification)?.item);
  if (item !== null && typeof item.status === "string") return item.status === "failed" ? "failed" : item.status === "completed" ? "ok" : null;
  if (result !== null && typeof result.success === "boolean") return result.success ? "ok" : "failed";
  if (detail?.is_error === true) return "failed";
  return null;
}

const ENTRY_ICON: Record<string, "message" | "tool" | "alert" | "bolt" | "clock"> = { user_message: "message", assistant_message: "message", tool_use: "tool", tool_result: "tool", error: "alert", thinking: "bolt", token_usage: "clock" };

const TranscriptRow = memo(function TranscriptRow({ file, params, index, nested, selected, onSelect }: { file: string; params: TranscriptParams; index: number; nested: boolean; selected: number | undefined; onSelect: (rowid: number | undefined) => void }) {
  const api = useApi();
  const page = Math.floor(index / BUNDLE_PAGE_SIZE);
  const query = useQuery(routeQuery(api, "bundleTranscript", { file, ...params, offset: page * BUNDLE_PAGE_SIZE, limit: BUNDLE_PAGE_SIZE }));
  const entry = query.data?.entries[index - page * BUNDLE_PAGE_SIZE];
  // The results answering this page's calls, in one request per page.
  const paired = (query.data?.entries ?? []).filter((candidate) => candidate.entry_type === "tool_use" && candidate.paired_rowid !== null).map((candidate) => candidate.paired_rowid as number);
  const low = paired.length === 0 ? 0 : Math.min(...paired);
  const high = paired.length === 0 ? 0 : Math.max(...paired);
  const results = useQuery({ ...routeQuery(api, "bundleTranscript", { file, entry_type: ["tool_result"], at_rowid: Math.max(1, low), limit: high - low + 1 }), enabled: nested && paired.length > 0 });
  if (entry === undefined) return query.isError ? <div className="transcript-entry muted">Could not load this page of the transcript.</div> : <div className="transcript-entry skeleton" aria-busy="true" />;
  const result = nested && entry.paired_rowid !== null ? results.data?.entries.find((candidate) => candidate.rowid === entry.paired_rowid) : undefined;
  return <EntryView entry={entry} result={result} resultPending={nested && entry.paired_rowid !== null && results.isPending} selected={selected === entry.rowid} resultSelected={result !== undefined && selected === result.rowid} onSelect={onSelect} />;
});

interface EntryViewProps {
  entry: TranscriptEntryResponse;
  result: TranscriptEntryResponse | undefined;
  resultPending: boolean;
  selected: boolean;
  resultSelected: boolean;
  onSelect: (rowid: number | undefined) => void;
}

function EntryView({ entry, result, resultPending, selected, resultSelected, onSelect }: EntryViewProps) {
  const type = entry.entry_type;
  const quiet = type === "system_event" || type === "token_usage" || type === "unknown" || type === "system";
  const outcome = type === "tool_result" ? outcomeOf(entry) : result === undefined ? null : outcomeOf(result);
  return (
    <article className={`transcript-entry type-${type}${quiet ? " is-quiet" : ""}${selected ? " is-selected" : ""}${outcome === "failed" ? " is-failed" : ""}`} data-testid="transcript-entry" data-rowid={entry.rowid} data-type={type} aria-label={`${type.replace(/_/g, " ")} ${entry.rowid}`}>
      <header className="transcript-entry-head">
        <button type="button" className="entry-select" aria-pressed={selected} onClick={() => onSelect(selected ? undefined : entry.rowid)} title="Select (a link to this entry)">
          #{entry.rowid}
        </button>
        <Icon name={ENTRY_ICON[type] ?? "list"} size={13} />
        <span className="entry-type">{type.replace(/_/g, " ")}</span>
        {entry.role !== "" ? <span className="tag tag-muted">{entry.role}</span> : null}
        {type === "tool_use" || type === "tool_result" ? <span className="mono entry-tool">{visibleText(entry.tool_name)}</span> : null}
        {outcome === "failed" ? <span className="status status-fail">failed</span> : outcome === "ok" ? <span className="status status-ok">ok</span> : null}
        {entry.transcript_source !== "" && entry.transcript_source !== "main" ? <span className="tag tag-accent">{entry.transcript_source}</span> : null}
        <span className="muted small mono entry-time" title={formatTimestamp(entry.timestamp)}>
          {clockOf(entry.timestamp)}
        </span>
      </header>
      <EntryBody entry={entry} />
      {result !== undefined ? (
        <div className={`tool-result${outcomeOf(result) === "failed" ? " is-failed" : ""}${resultSelected ? " is-selected" : ""}`} data-testid="tool-result" data-rowid={result.rowid}>
          <div className="tool-result-head small">
            <button type="button" className="entry-select" aria-pressed={resultSelected} onClick={() => onSelect(resultSelected ? undefined : result.rowid)} title="Select the result (a link to it)">
              ↳ result #{result.rowid}
            </button>{" "}
            <span className="muted mono">{clockOf(result.timestamp)}</span>
          </div>
          <TruncatedText text={resultText(result)} className="entry-text mono" />
        </div>
      ) : resultPending ? (
        <div className="tool-result skeleton" aria-busy="true" />
      ) : null}
    </article>
  );
}

function EntryBody({ entry }: { entry: TranscriptEntryResponse }) {
  const type = entry.entry_type;
  const html = useMemo(() => (entry.content_html === undefined ? null : sanitizeHtml(entry.content_html)), [entry.content_html]);
  if (type === "tool_use") {
    const call = toolCallOf(entry);
    return call.arguments === null || call.arguments === undefined ? null : <Arguments value={call.arguments} path={`use-${entry.rowid}`} />;
  }
  // Thinking, system, usage, plan and error entries in words; their JSON only when nothing in it is recognised.
  const readable = type === "thinking" || type === "error" || type === "system" || type === "system_event" || type === "token_usage" || type === "unknown" ? quietEntryText(type, parsed(entry)) : null;
  if (type === "system_event" || type === "token_usage" || type === "unknown" || type === "system") {
    return readable === null ? <p className="entry-line mono small">{visibleText(entry.content.replace(/\s+/g, " ").slice(0, 300))}</p> : <p className="entry-line small" data-testid="entry-readable" title={visibleText(readable)}>
        {visibleText(readable)}
      </p>;
  }
  if (readable !== null) return <TruncatedText text={readable} className={`entry-text${type === "thinking" ? " entry-thinking" : ""}`} />;
  if (html !== null && (type === "user_message" || type === "assistant_message")) {
    // Sanitised twice (server: no raw HTML; here: DOMPurify), never executed.
    return <div className="markdown-body entry-markdown" tabIndex={0} role="region" aria-label={`${type.replace(/_/g, " ")} ${entry.rowid}`} dangerouslySetInnerHTML={{ __html: html }} />;
  }
  return <TruncatedText text={type === "tool_result" ? resultText(entry) : entry.content} className={`entry-text${type === "tool_result" ? " mono" : ""}`} />;
}
