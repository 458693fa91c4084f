/**
 * One slice of the selected snapshot: its items as cards with JSON trees, fetched in pages
 * and virtualised, so a 2,400-item slice opens with one page and scrolls smoothly. Item
 * search and the object filter need every item: they load the remaining pages (showing
 * progress) and filter in the browser, with the original viewer's semantics.
 */
import { useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import type { UseQueryResult } from "@tanstack/react-query";
import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from "react";
import type { SnapshotMetaResponse, SnapshotRef } from "../../api/api.js";
import { useApi } from "../../api/context.js";
import { copyText } from "../../components/clipboard.js";
import { EmptyState, ErrorState, Kbd, Spinner, errorMessage } from "../../components/feedback.js";
import { formatCount, formatTimestamp, plural } from "../../components/format.js";
import { Icon } from "../../components/Icon.js";
import { Modal } from "../../components/Modal.js";
import { SLICE_PAGE_SIZE, slicePage } from "../../queries/options.js";
import { routeQuery } from "../../queries/route-query.js";
import { setPreference, usePreferences } from "../../state/preferences.js";
import { doubleKey, useKeymap } from "../../state/shortcuts.js";
import { showToast } from "../../state/toasts.js";
import { useNavigate } from "../../state/url-store.js";
import { prettyJson } from "../../../shared/viewer/index.js";
import type { JsonValue } from "../../../shared/session/browser.js";
import { itemSummary } from "./item-summary.js";
import { itemMatches, pruneByKey } from "../../components/json-model.js";
import { JsonTree } from "./JsonTree.js";
import { SlicesPanel } from "./SlicesPanel.js";
import { useTreeState } from "./tree-state.js";
import type { TreeState } from "./tree-state.js";

export interface SlicesViewProps {
  readonly snapshot: SnapshotRef;
  readonly meta: SnapshotMetaResponse;
  readonly sliceType: string | undefined;
  readonly item: number | undefined;
}

export function SlicesView({ snapshot, meta, sliceType, item }: SlicesViewProps) {
  const navigate = useNavigate();
  const summary = meta.slices.find((slice) => slice.slice_type === sliceType) ?? meta.slices[0];
  useEffect(() => {
    if (summary !== undefined && summary.slice_type !== sliceType) navigate({ slice: summary.slice_type }, { replace: true });
  }, [summary, sliceType, navigate]);
  if (summary === undefined) return <EmptyState title="This snapshot has no slices." />;
  return (
    <div className="slices-layout">
      <SlicesPanel meta={meta} activeSlice={summary.slice_type} />
      <SliceItems key={`${snapshot.file}:${snapshot.line}:${summary.slice_type}`} snapshot={snapshot} slice={summary} focusItem={item} />
    </div>
  );
}

type SliceSummary = SnapshotMetaResponse["slices"][number];

/** Items per request when every item is needed (search, object filter, copy). */
const FILTER_PAGE_SIZE = 400;

/**
 * The filter pages' data and their first error. A module-level function: TanStack Query then
 * re-runs it (and hands out a new value) only when a page's result changes, so what is derived
 * from the pages is recomputed only then.
 */
function combinePages<T>(results: readonly UseQueryResult<T>[]): { pages: (T | undefined)[]; error: Error | undefined } {
  return { pages: results.map((result) => result.data), error: results.find((result) => result.isError)?.error ?? undefined };
}

function SliceItems({ snapshot, slice, focusItem }: { snapshot: SnapshotRef; slice: SliceSummary; focusItem: number | undefined }) {
  const api = useApi();
  const client = useQueryClient();
  const navigate = useNavigate();
  const preferences = usePreferences();
  const tree = useTreeState(preferences.expandDepth);
  const [search, setSearch] = useState("");
  const [keyFilter, setKeyFilter] = useState("");
  const deferredSearch = useDeferredValue(search.trim());
  const deferredKeyFilter = useDeferredValue(keyFilter.trim());
  const [popOut, setPopOut] = useState<{ title: string; html: string } | null>(null);
  const searchInput = useRef<HTMLInputElement>(null);
  const filterInput = useRef<HTMLInputElement>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const total = slice.count;
  // Filtering needs every item: fetched in fewer, larger pages than the visible ones.
  const pageCount = Math.ceil(total / FILTER_PAGE_SIZE);
  const filtering = deferredSearch !== "" || deferredKeyFilter !== "";

  // Every page, only while a filter needs them all.
  const { pages: allPages, error: pageError } = useQueries({
    queries: Array.from({ length: filtering ? pageCount : 0 }, (_, page) => routeQuery(api, "slicePage", slicePage(snapshot, slice.slice_type, page, FILTER_PAGE_SIZE))),
    combine: combinePages,
  });
  const loadedPages = allPages.filter((page) => page !== undefined).length;
  const allLoaded = filtering && loadedPages === pageCount;

  const visible = useMemo((): { index: number; value?: unknown }[] => {
    if (!filtering) return Array.from({ length: total }, (_, index) => ({ index }));
    if (!allLoaded) return [];
    const result: { index: number; value?: unknown }[] = [];
    allPages.forEach((data, page) => {
      data?.items.forEach((value, offset) => {
        if (!itemMatches(value, deferredSearch)) return;
        const shown = deferredKeyFilter === "" ? value : pruneByKey(value, deferredKeyFilter);
        if (shown !== undefined) result.push({ index: page * FILTER_PAGE_SIZE + offset, value: shown });
      });
    });
    return result;
  }, [filtering, allLoaded, total, deferredSearch, deferredKeyFilter, allPages]);

  const virtualizer = useVirtualizer({
    count: visible.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 220,
    overscan: 3,
    getItemKey: (position) => visible[position]?.index ?? position,
  });

  const [focused, setFocused] = useState<number>(() => Math.max(0, visible.findIndex((entry) => entry.index === focusItem)));
  useEffect(() => {
    if (focusItem === undefined) return;
    const position = visible.findIndex((entry) => entry.index === focusItem);
    if (position !== -1) {
      setFocused(position);
      virtualizer.scrollToIndex(position, { align: "start" });
    }
    // When the URL names another item, or the list it is found in changes (the virtualizer is one instance).
  }, [focusItem, visible, virtualizer]);

  const move = useCallback(
    (step: number) => {
      if (visible.length === 0) return;
      const next = Math.min(visible.length - 1, Math.max(0, focused + step));
      if (!Number.isFinite(next)) return;
      setFocused(next);
      virtualizer.scrollToIndex(next, { align: "start", behavior: "smooth" });
      const entry = visible[next];
      if (entry !== undefined) navigate({ item: entry.index }, { replace: true });
    },
    [visible, focused, virtualizer, navigate],
  );

  const copyJson = useCallback(async () => {
    try {
      const pages = await Promise.all(Array.from({ length: pageCount }, (_, page) => client.fetchQuery(routeQuery(api, "slicePage", slicePage(snapshot, slice.slice_type, page, FILTER_PAGE_SIZE)))));
      const items = pages.flatMap((page) => page.items).filter((value) => itemMatches(value, search.trim()));
      await copyText(prettyJson(items as JsonValue));
      showToast(`Copied ${plural(items.length, "item")} as JSON`);
    } catch (error) {
      showToast(`Copy failed: ${errorMessage(error)}`, "error");
    }
  }, [api, client, snapshot, slice.slice_type, pageCount, search]);

  const toFirst = useMemo(() => doubleKey(() => move(-Infinity)), [move]);
  useKeymap({
    j: () => move(1),
    k: () => move(-1),
    g: toFirst,
    "shift+g": () => move(Infinity),
    "/": () => searchInput.current?.focus(),
    o: () => filterInput.current?.focus(),
    e: () => void copyJson(),
    escape: (event) => {
      const target = event.target;
      if (target === searchInput.current || target === filterInput.current) {
        if (target === searchInput.current) setSearch("");
        else setKeyFilter("");
        (target as HTMLInputElement).blur();
        return true;
      }
      return false;
    },
  });

  const countLabel = filtering ? (allLoaded ? `${formatCount(visible.length)} of ${plural(total, "item")}` : `loading ${loadedPages}/${pageCount} pages…`) : plural(total, "item");

  return (
    <section className="slice-view" aria-label={`Slice ${slice.display_name}`}>
      <header className="card slice-header">
        <div className="slice-title">
          <div>
            <div className="eyebrow">{slice.kind === "event" ? "Event slice" : "State slice"}</div>
            <h2 title={slice.slice_type}>{slice.display_name}</h2>
          </div>
          <span className="count-chip" data-testid="slice-count">
            {countLabel}
            {deferredKeyFilter !== "" ? ` · filtered by "${deferredKeyFilter}"` : ""}
          </span>
        </div>
        <div className="pills">
          <span className="pill" title={slice.slice_type}>
            slice: {slice.slice_type}
          </span>
          <span className="pill" title={slice.item_type}>
            item: {slice.item_type}
          </span>
        </div>
        <div className="toolbar">
          <label className="field">
            <span>Search items</span>
            <input ref={searchInput} type="search" placeholder="keyword" value={search} onChange={(event) => setSearch(event.target.value)} data-testid="item-search" />
            <Kbd>/</Kbd>
          </label>
          <label className="field">
            <span>Filter objects</span>
            <input ref={filterInput} type="search" placeholder="property" value={keyFilter} onChange={(event) => setKeyFilter(event.target.value)} data-testid="object-filter" />
            <Kbd>O</Kbd>
          </label>
          <label className="field field-narrow">
            <span>Expand to depth</span>
            <input
              type="number"
              min={1}
              max={10}
              value={tree.depth === Infinity ? 10 : Math.max(1, tree.depth)}
              onChange={(event) => {
                const depth = Math.min(10, Math.max(1, Number(event.target.value) || 1));
                setPreference("expandDepth", depth);
                tree.reset(depth);
              }}
            />
          </label>
          <button type="button" className="btn" onClick={() => tree.reset(Infinity)}>
            Expand all
          </button>
          <button type="button" className="btn" onClick={() => tree.reset(0)}>
            Collapse all
          </button>
          <button type="button" className="btn" onClick={() => void copyJson()} title="Copy the items matching the search as JSON (E)">
            <Icon name="copy" /> Copy JSON
          </button>
        </div>
      </header>
      {pageError !== undefined ? <ErrorState error={pageError} title="Could not load the slice" /> : null}
      {filtering && !allLoaded ? (
        <Spinner label={`Loading every item to filter (${loadedPages}/${pageCount} pages)…`} />
      ) : visible.length === 0 ? (
        <EmptyState title={filtering ? "No item matches." : "This slice is empty."} />
      ) : (
        <div className="item-scroller" ref={scroller} data-testid="item-scroller">
          <div className="item-canvas" style={{ height: virtualizer.getTotalSize() }}>
            {virtualizer.getVirtualItems().map((row) => {
              const entry = visible[row.index];
              if (entry === undefined) return null;
              return (
                <div key={row.key} className="item-row" data-index={row.index} ref={virtualizer.measureElement} style={{ transform: `translateY(${row.start}px)` }}>
                  <ItemCard
                    snapshot={snapshot}
                    sliceType={slice.slice_type}
                    index={entry.index}
                    value={entry.value}
                    filtered={filtering}
                    focused={row.index === focused}
                    tree={tree}
                    keyNeedle={deferredKeyFilter}
                    onPopOut={setPopOut}
                  />
                </div>
              );
            })}
          </div>
        </div>
      )}
      {popOut !== null ? (
        <Modal title={popOut.title} onClose={() => setPopOut(null)} wide>
          <div className="markdown-body" dangerouslySetInnerHTML={{ __html: popOut.html }} />
        </Modal>
      ) : null}
    </section>
  );
}

interface ItemCardProps {
  snapshot: SnapshotRef;
  sliceType: string;
  index: number;
  /** The (filtered) value, when the list already holds it. */
  value: unknown;
  filtered: boolean;
  focused: boolean;
  tree: TreeState;
  keyNeedle: string;
  onPopOut: (popOut: { title: string; html: string }) => void;
}

const ItemCard = memo(function ItemCard({ snapshot, sliceType, index, value, filtered, focused, tree, keyNeedle, onPopOut }: ItemCardProps) {
  const api = useApi();
  const page = Math.floor(index / SLICE_PAGE_SIZE);
  const query = useQuery({ ...routeQuery(api, "slicePage", slicePage(snapshot, sliceType, page)), enabled: !filtered });
  const item = filtered ? value : query.data?.items[index - page * SLICE_PAGE_SIZE];
  const summary = itemSummary(item);
  const popOut = useCallback((title: string, html: string) => onPopOut({ title, html }), [onPopOut]);
  return (
    <article className={`item-card${focused ? " is-focused" : ""}`} aria-label={`Item ${index + 1}`} data-testid="item-card" data-item={index}>
      <header className="item-card-header">
        <span>Item {index + 1}</span>
        {summary.title !== null ? <span className="item-title">{summary.title}</span> : null}
        {summary.success === true ? <span className="status status-ok">success</span> : summary.success === false ? <span className="status status-fail">failed</span> : null}
        {summary.createdAt !== null ? <span className="muted small mono">{formatTimestamp(summary.createdAt)}</span> : null}
      </header>
      <div className="item-card-body">
        {item === undefined ? (
          query.isError ? (
            <ErrorState error={query.error} title="Could not load this item" onRetry={() => void query.refetch()} />
          ) : (
            <div className="skeleton" aria-busy="true" />
          )
        ) : (
          <JsonTree value={item} path={`item-${index}`} label="root" tree={tree} keyNeedle={keyNeedle} onPopOut={popOut} />
        )}
      </div>
    </article>
  );
});
