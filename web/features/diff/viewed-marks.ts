/**
 * "Viewed" marks of a comparison, as a code-review tool keeps them: per base/target pair and
 * file, in localStorage (so they survive reloads and are shared by tabs of this browser).
 */
import { useCallback, useSyncExternalStore } from "react";
import type { SnapshotRef } from "../../api/api.js";

const PREFIX = "wink-viewed:";
const listeners = new Set<() => void>();
const cache = new Map<string, ReadonlySet<string>>();

function storageKey(base: SnapshotRef, target: SnapshotRef): string {
  return `${PREFIX}${JSON.stringify([base.file, base.line, target.file, target.line])}`;
}

function read(key: string): ReadonlySet<string> {
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  let value: ReadonlySet<string> = new Set();
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(key) ?? "[]");
    if (Array.isArray(parsed)) value = new Set(parsed.filter((entry): entry is string => typeof entry === "string"));
  } catch {
    // unreadable or blocked storage: no marks
  }
  cache.set(key, value);
  return value;
}

function write(key: string, value: ReadonlySet<string>): void {
  cache.set(key, value);
  try {
    if (value.size === 0) localStorage.removeItem(key);
    else localStorage.setItem(key, JSON.stringify([...value]));
  } catch {
    // quota or blocked storage: the marks last for the page
  }
  for (const listener of listeners) listener();
}

if (typeof window !== "undefined") {
  window.addEventListener("storage", (event) => {
    if (event.key === null || !event.key.startsWith(PREFIX)) return;
    cache.delete(event.key);
    for (const listener of listeners) listener();
  });
}

/** The viewed files of the comparison, and a toggle. */
export function useViewedMarks(base: SnapshotRef | undefined, target: SnapshotRef): { viewed: ReadonlySet<string>; toggle: (path: string) => void } {
  const key = base === undefined ? null : storageKey(base, target);
  const viewed = useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => (key === null ? EMPTY : read(key)),
  );
  const toggle = useCallback(
    (path: string) => {
      if (key === null) return;
      const next = new Set(read(key));
      if (next.has(path)) next.delete(path);
      else next.add(path);
      write(key, next);
    },
    [key],
  );
  return { viewed, toggle };
}

const EMPTY: ReadonlySet<string> = new Set();
