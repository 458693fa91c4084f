/**
 * Preferences kept in localStorage (theme, sidebar, diff layout, expand depth). The theme
 * keys match the original viewer's (`wink-theme`, `wink-sidebar-collapsed`).
 */
import { useSyncExternalStore } from "react";
import { setThemeAttribute, startingTheme, storage, THEME_KEY } from "./theme.js";
import type { Theme } from "./theme.js";

export type { Theme } from "./theme.js";

export interface Preferences {
  theme: Theme;
  sidebarCollapsed: boolean;
  diffLayout: "split" | "unified";
  expandDepth: number;
  /** Sidebar width in pixels (dragged with its handle). */
  sidebarWidth: number;
  /** Width of the compare view's changed-files list. */
  changeListWidth: number;
  /** Width of the timeline's event detail panel. */
  detailWidth: number;
}

export const SIDEBAR_WIDTH = { min: 220, max: 560, default: 320 } as const;
export const CHANGE_LIST_WIDTH = { min: 200, max: 640, default: 340 } as const;
export const DETAIL_WIDTH = { min: 280, max: 900, default: 440 } as const;

const KEYS = {
  theme: THEME_KEY,
  sidebarCollapsed: "wink-sidebar-collapsed",
  diffLayout: "wink-diff-layout",
  expandDepth: "wink-expand-depth",
  sidebarWidth: "wink-sidebar-width",
  changeListWidth: "wink-change-list-width",
  detailWidth: "wink-detail-width",
} as const;

function width_(store: Storage | null, key: string, range: { min: number; max: number; default: number }): number {
  const value = Number(store?.getItem(key));
  return Number.isFinite(value) && value >= range.min && value <= range.max ? value : range.default;
}

/**
 * What the server renders with (it has no localStorage): the hydrating render uses these too,
 * so its markup matches the server's, then React renders again with the stored ones.
 */
const SERVER_PREFERENCES: Preferences = {
  theme: "light",
  sidebarCollapsed: false,
  diffLayout: "split",
  expandDepth: 2,
  sidebarWidth: SIDEBAR_WIDTH.default,
  changeListWidth: CHANGE_LIST_WIDTH.default,
  detailWidth: DETAIL_WIDTH.default,
};

function initial(): Preferences {
  const store = storage();
  const depth = Number(store?.getItem(KEYS.expandDepth));
  const width = Number(store?.getItem(KEYS.sidebarWidth));
  return {
    theme: startingTheme(store),
    sidebarCollapsed: store?.getItem(KEYS.sidebarCollapsed) === "true",
    diffLayout: store?.getItem(KEYS.diffLayout) === "unified" ? "unified" : "split",
    expandDepth: Number.isInteger(depth) && depth >= 1 && depth <= 10 ? depth : 2,
    sidebarWidth: Number.isFinite(width) && width >= SIDEBAR_WIDTH.min && width <= SIDEBAR_WIDTH.max ? width : SIDEBAR_WIDTH.default,
    changeListWidth: width_(store, KEYS.changeListWidth, CHANGE_LIST_WIDTH),
    detailWidth: width_(store, KEYS.detailWidth, DETAIL_WIDTH),
  };
}

let current: Preferences | null = null;
const listeners = new Set<() => void>();

export function getPreferences(): Preferences {
  current ??= initial();
  return current;
}

export function setPreference<K extends keyof Preferences>(key: K, value: Preferences[K]): void {
  current = { ...getPreferences(), [key]: value };
  try {
    storage()?.setItem(KEYS[key], String(value));
  } catch {
    // quota or blocked storage: keep the in-memory value
  }
  if (key === "theme") applyTheme(value as Theme);
  for (const listener of listeners) listener();
}

/** Sets `data-theme` on `<html>` (the stylesheet's switch). */
export function applyTheme(theme: Theme = getPreferences().theme): void {
  setThemeAttribute(theme);
}

export function usePreferences(): Preferences {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    getPreferences,
    () => SERVER_PREFERENCES,
  );
}
