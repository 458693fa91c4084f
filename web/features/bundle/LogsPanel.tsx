/**
 * A bundle's `logs/app.jsonl`: every record in a virtualised list fetched in pages (the
 * first page is one request however long the log), WINK's level/logger/event facets with
 * include and exclude, a text search, and time navigation: jump to a time (wall clock, an
 * offset from the start, or ISO), or to the next / previous ERROR record. Filters, search,
 * the selected record and the time jumped to live in the URL, so any place in a log is a
 * link. J/K move, Enter opens the record's context, E / Shift+E step through errors.
 */
import { skipToken, useQuery } from "@tanstack/react-query";
import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useEffect, useMemo, useRef, useState } from "react";
import type { LogEntryResponse, LogsParams } from "../../api/bundle-api.js";
import { useApi } from "../../api/context.js";
import { EmptyState, ErrorState, Kbd, Spinner } from "../../components/feedback.js";
import { formatCount, formatTimestamp, plural } from "../../components/format.js";
import { Icon } from "../../components/Icon.js";
import { useLogFacets, useLogs } from "../../queries/hooks.js";
import { BUNDLE_PAGE_SIZE } from "../../queries/options.js";
import { routeQuery } from "../../queries/route-query.js";
import { useKeymap } from "../../state/shortcuts.js";
import { showToast } from "../../state/toasts.js";
import { useNavigate } from "../../state/url-store.js";
import type { FacetFilter } from "../../state/view-state.js";
import { visibleText } from "../../components/json-model.js";
import { logsParams } from "./facet-filters.js";
import { FacetList, FacetsAside } from "./FacetList.js";
import { useRowNavigation } from "./row-navigation.js";
import { SearchField } from "./SearchField.js";
import { clockOf, timeFromInput } from "./time-input.js";
import { ValueTree } from "./ValueTree.js";

const ROW = 30;

/** Context fields that say what a record is about, most telling first. */
const TELLING = ["error", "reason", "message", "tool_name", "path", "policy"];

/**
 * The line shown for a record: its message, and when the message only repeats the event
 * name (WINK's bridge writes `claude_agent_sdk.bridge.handler_error`), the context's most
 * telling fields after it.
 */
function messageLine(record: LogEntryResponse): string {
  if (!(record.message === record.event || record.message.endsWith(`.${record.event}`))) return record.message;
  const context = typeof record.context === "object" && record.context !== null && !Array.isArray(record.context) ? (record.context as Record<string, unknown>) : {};
  const parts = TELLING.map((key) => context[key]).filter((value): value is string => typeof value === "string" && value !== "");
  return parts.length === 0 ? record.message : parts.slice(0, 2).join(" · ");
}

/** A dotted logger name by its last two parts (`weakincentives.adapters._shared._bridge` → `…_shared._bridge`). */
function shortLogger(name: string): string {
  const parts = name.split(".");
  return parts.length <= 2 ? name : `…${parts.slice(-2).join(".")}`;
}
const ERROR_LEVELS = ["ERROR", "CRITICAL"];

export interface LogsPanelProps {
  readonly file: string;
  readonly filters: readonly FacetFilter[];
  readonly search: string | undefined;
  /** The selected record's line in the log. */
  readonly entry: number | undefined;
  readonly time: string | undefined;
}

export function LogsPanel({ file, filters, search, entry, time }: LogsPanelProps) {
  const api = useApi();
  const navigate = useNavigate();
  const params = useMemo(() => logsParams(filters, search), [filters, search]);
  const first = useLogs(file, { ...params, offset: 0, limit: BUNDLE_PAGE_SIZE });
  const facets = useLogFacets(file);
  const head = useLogs(file, { offset: 0, limit: 1 });
  const errors = useLogs(file, { level: ERROR_LEVELS, limit: 1000 });
  const scroller = useRef<HTMLDivElement>(null);
  const timeField = useRef<HTMLInputElement>(null);
  const searchField = useRef<HTMLInputElement>(null);
  const [timeText, setTimeText] = useState("");
  const total = first.data?.total ?? 0;
  const firstTime = head.data?.entries[0]?.timestamp ?? null;

  // Where the selected record (or the time jumped to) is among the shown records.
  const landingParams: LogsParams | null = time !== undefined ? { ...params, at: time, limit: 1 } : entry !== undefined ? { ...params, at_line: entry, limit: 1 } : null;
  const landing = useQuery(routeQuery(api, "bundleLogs", landingParams === null ? skipToken : { file, ...landingParams }));
  const landed = landing.data?.entries[0] ?? null;
  const position = landingParams !== null && landing.data !== undefined ? landing.data.offset : null;

  const virtualizer = useVirtualizer({ count: total, getScrollElement: () => scroller.current, estimateSize: () => ROW, overscan: 12 });
  useEffect(() => {
    // A time resolves to the record found there, which becomes the selection.
    if (time !== undefined && landing.data !== undefined) {
      if (landed === null) showToast(`No shown record at or after ${time}`);
      navigate({ time: undefined, entry: landed?.line_number }, { replace: true });
    }
  }, [time, landing.data, landed, navigate]);
  useEffect(() => {
    // Only when the landing place changes (the virtualizer is one instance for the panel's life).
    if (position !== null && position < total) virtualizer.scrollToIndex(position, { align: "auto" });
  }, [position, total, virtualizer]);

  const select = (line: number | undefined) => navigate({ entry: line, time: undefined }, { replace: true });
  const setFilters = (next: FacetFilter[]) => navigate({ facets: next.length === 0 ? undefined : next, time: undefined }, { replace: true });

  const rows = useRowNavigation((offset, limit) => routeQuery(api, "bundleLogs", { file, ...params, offset, limit }), total, position, (record) => select(record.line_number), `${file}\n${JSON.stringify(params)}`);
  const errorRecords = errors.data?.entries ?? [];
  const stepError = (step: 1 | -1) => {
    if (errorRecords.length === 0) {
      showToast("No ERROR record in this log");
      return;
    }
    const current = entry ?? (step === 1 ? 0 : Number.POSITIVE_INFINITY);
    const next = step === 1 ? (errorRecords.find((record) => record.line_number > current) ?? errorRecords[0]) : ([...errorRecords].reverse().find((record) => record.line_number < current) ?? errorRecords[errorRecords.length - 1]);
    if (next !== undefined) navigate({ entry: next.line_number, time: undefined });
  };
  const jumpToTime = () => {
    const iso = timeFromInput(timeText, firstTime);
    if (iso === null) {
      showToast(`"${timeText}" is not a time: try 05:45:35, +12s or an ISO time`, "error");
      return;
    }
    navigate({ time: iso, entry: undefined });
    // The keys go back to the list (J/K, E) once the time is taken.
    timeField.current?.blur();
    scroller.current?.focus();
  };

  useKeymap({
    ...rows.keys,
    e: () => stepError(1),
    "shift+e": () => stepError(-1),
    t: () => timeField.current?.focus(),
    "/": () => searchField.current?.focus(),
  });

  const landedElsewhere = entry !== undefined && landed !== null && landed.line_number !== entry && time === undefined;
  return (
    <div className="bundle-panel logs-panel" data-testid="logs-panel">
      <FacetsAside label="Log facets" counts={facets} errorTitle="Could not count the log's facets">
        {(counts) => (
          <>
            <FacetList facet="level" title="Levels" values={counts.levels} filters={filters} onChange={setFilters} />
            <FacetList facet="logger" title="Loggers" values={counts.loggers} filters={filters} onChange={setFilters} display={shortLogger} />
            <FacetList facet="event" title="Events" values={counts.events} filters={filters} onChange={setFilters} />
          </>
        )}
      </FacetsAside>
      <section className="panel-main" aria-label="Log records">
        <header className="card panel-toolbar">
          <div className="panel-title-row">
            <h2>Logs</h2>
            <span className="count-chip" data-testid="logs-count">
              {first.data === undefined ? "…" : filters.length > 0 || params.search !== undefined ? `${formatCount(total)} of ${plural(head.data?.total ?? 0, "record")}` : plural(total, "record")}
            </span>
            {firstTime !== null ? <span className="muted small mono">from {formatTimestamp(firstTime)}</span> : null}
            {filters.length > 0 ? (
              <button type="button" className="mini-btn" onClick={() => setFilters([])} data-testid="clear-facets">
                Clear {plural(filters.length, "filter")}
              </button>
            ) : null}
          </div>
          <div className="toolbar">
            <SearchField inputRef={searchField} value={search} label="Search messages and context" placeholder="text in message or context" testId="logs-search" />
            <form
              className="field"
              onSubmit={(event) => {
                event.preventDefault();
                jumpToTime();
              }}
            >
              <label htmlFor="logs-time">Jump to</label>
              <input id="logs-time" ref={timeField} type="text" className="time-input" placeholder="05:45:35 · +12s · ISO" value={timeText} onChange={(event) => setTimeText(event.target.value)} data-testid="logs-time" />
              <Kbd>T</Kbd>
              <button type="submit" className="btn btn-small">
                Go
              </button>
            </form>
            <div className="segmented" role="group" aria-label="Errors">
              <button type="button" onClick={() => stepError(-1)} disabled={errorRecords.length === 0} title="Previous ERROR record (Shift+E)" aria-label="Previous error">
                ↑
              </button>
              <button type="button" onClick={() => stepError(1)} disabled={errorRecords.length === 0} title="Next ERROR record (E)" data-testid="next-error">
                <Icon name="alert" size={12} /> {errors.data === undefined ? "errors" : plural(errors.data.total, "error")}
              </button>
            </div>
          </div>
          {landedElsewhere ? <p className="muted small">Line {entry} is hidden by the filters: the next shown record is selected.</p> : null}
        </header>
        {first.isPending ? (
          <Spinner label="Reading the log…" />
        ) : first.isError ? (
          <ErrorState error={first.error} title="Could not read the log" onRetry={() => void first.refetch()} />
        ) : total === 0 ? (
          <EmptyState title={head.data?.total === 0 ? "This bundle has no log records." : "No record matches the filters."}>{head.data?.total === 0 ? "WINK keeps only the records emitted while the adapter ran (logs/app.jsonl)." : null}</EmptyState>
        ) : (
          <div className="log-scroller" ref={scroller} data-testid="log-scroller" tabIndex={0} aria-label={`${plural(total, "log record")}; J/K move`}>
            <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
              {virtualizer.getVirtualItems().map((row) => (
                <div key={row.key} data-index={row.index} ref={virtualizer.measureElement} className="log-row-slot" style={{ transform: `translateY(${row.start}px)` }}>
                  <LogRow file={file} params={params} index={row.index} selected={entry} onSelect={select} />
                </div>
              ))}
            </div>
          </div>
        )}
      </section>
    </div>
  );
}

const LogRow = memo(function LogRow({ file, params, index, selected, onSelect }: { file: string; params: LogsParams; index: number; selected: number | undefined; onSelect: (line: number | undefined) => void }) {
  const api = useApi();
  const page = Math.floor(index / BUNDLE_PAGE_SIZE);
  const query = useQuery(routeQuery(api, "bundleLogs", { file, ...params, offset: page * BUNDLE_PAGE_SIZE, limit: BUNDLE_PAGE_SIZE }));
  const record = query.data?.entries[index - page * BUNDLE_PAGE_SIZE];
  if (record === undefined) return query.isError ? <div className="log-row muted">Could not load this page of the log.</div> : <div className="log-row skeleton" aria-busy="true" />;
  const open = record.line_number === selected;
  const level = record.level.toUpperCase();
  return (
    <div className={`log-entry${open ? " is-open" : ""}`} data-testid="log-row" data-line={record.line_number} data-level={level}>
      <button type="button" className={`log-row level-${level.toLowerCase()}`} aria-expanded={open} onClick={() => onSelect(open ? undefined : record.line_number)}>
        <span className="log-time mono" title={record.timestamp}>
          {clockOf(record.timestamp)}
        </span>
        <span className={`log-level level-${level.toLowerCase()}`}>{level || "—"}</span>
        <span className="log-logger mono" title={record.logger}>
          {shortLogger(record.logger)}
        </span>
        <span className="log-event mono">{record.event}</span>
        <span className="log-message">{visibleText(messageLine(record))}</span>
      </button>
      {open ? (
        <div className="log-detail" data-testid="log-detail">
          <p className="muted small">
            line {record.line_number} of logs/app.jsonl · {formatTimestamp(record.timestamp)} · {record.logger}
            {record.error !== undefined ? <span className="text-danger"> · {record.error}</span> : null}
          </p>
          <pre className="log-message-full">{visibleText(record.message)}</pre>
          {record.context !== null && record.context !== undefined ? <ValueTree value={record.context} label="context" path={`log-${record.line_number}`} /> : null}
        </div>
      ) : null}
    </div>
  );
});
