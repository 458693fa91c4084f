/**
 * Moving through a paged, virtualised panel list (log records, transcript entries) with the
 * keyboard: the row at an index is read from its page's query (fetched when not loaded
 * yet), and J/K, G G and Shift+G select the next, previous, first or last one.
 */
import { useQueryClient } from "@tanstack/react-query";
import type { FetchQueryOptions, QueryKey } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { BUNDLE_PAGE_SIZE } from "../../queries/options.js";
import { doubleKey } from "../../state/shortcuts.js";
import type { KeyHandler, Keymap } from "../../state/shortcuts.js";

export interface RowNavigation {
  /** The row at `index` among the shown ones. */
  rowAt(index: number): Promise<unknown>;
  /** J/K (and ↓/↑), G G, Shift+G. */
  readonly keys: Keymap;
}

/**
 * `pageQuery(offset, limit)`: the query of one page; `position`: the selected row's index
 * among the shown ones (null: none); `select` receives the row found.
 */
export function useRowNavigation<P extends { entries: unknown[] }, K extends QueryKey>(
  pageQuery: (offset: number, limit: number) => FetchQueryOptions<P, Error, P, K>,
  total: number,
  position: number | null,
  select: (row: P["entries"][number]) => void,
  identity: unknown,
): RowNavigation {
  const client = useQueryClient();
  const rowAt = async (index: number): Promise<P["entries"][number] | undefined> => {
    const page = Math.floor(index / BUNDLE_PAGE_SIZE);
    const data = await client.fetchQuery(pageQuery(page * BUNDLE_PAGE_SIZE, BUNDLE_PAGE_SIZE));
    return data.entries[index - page * BUNDLE_PAGE_SIZE];
  };
  // Where the selection is: the index a key just moved to, until the panel has found the selected row again (keys pressed quickly do not wait for it).
  const current = useRef<number | null>(position);
  useEffect(() => {
    current.current = position;
  }, [position]);
  const go = (index: number) => {
    current.current = index;
    void rowAt(index).then((row) => row !== undefined && select(row));
  };
  const move = (step: number) => {
    if (total === 0) return;
    const from = current.current ?? (step > 0 ? -1 : total);
    go(Math.min(total - 1, Math.max(0, from + step)));
  };
  // `gg` needs the same handler between presses: kept while the list is the same (a `g` typed
  // before the list changed does not count), calling the newest `go`.
  const latestGo = useRef(go);
  useEffect(() => {
    latestGo.current = go;
  });
  const toFirst = useRef<KeyHandler>(() => undefined);
  useEffect(() => {
    toFirst.current = doubleKey(() => latestGo.current(0));
  }, [identity]);
  return {
    rowAt,
    keys: { j: () => move(1), k: () => move(-1), arrowdown: () => move(1), arrowup: () => move(-1), g: (event) => toFirst.current(event), "shift+g": () => go(total - 1) },
  };
}
