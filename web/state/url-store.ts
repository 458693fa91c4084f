/**
 * The view state bound to the browser's history: query parameters on a server, the hash
 * on `file://` (a bundled run), where history entries must stay within the same document.
 * `navigate` pushes an entry (back/forward work); `replace` corrects the current one.
 */
import { useCallback, useSyncExternalStore } from "react";
import type { ViewPatch, ViewState } from "./view-state.js";
import { applyPatch, parseViewState, serializeViewState } from "./view-state.js";

const CHANGE_EVENT = "wink:navigate";
const stateInHash = () => typeof location !== "undefined" && location.protocol === "file:";

function currentParams(): string {
  // Rendered on the server (web/entry-server.tsx): only the landing URL, `/` with no query.
  if (typeof location === "undefined") return "";
  if (stateInHash()) return location.hash.replace(/^#/, "");
  return location.search.replace(/^\?/, "");
}

let cachedText: string | null = null;
let cachedState: ViewState | null = null;

/** The current state (memoised on the URL text, so React sees a stable snapshot). */
export function readViewState(): ViewState {
  const text = currentParams();
  if (cachedState === null || text !== cachedText) {
    cachedText = text;
    cachedState = parseViewState(new URLSearchParams(text));
  }
  return cachedState;
}

function subscribe(listener: () => void): () => void {
  window.addEventListener("popstate", listener);
  window.addEventListener("hashchange", listener);
  window.addEventListener(CHANGE_EVENT, listener);
  return () => {
    window.removeEventListener("popstate", listener);
    window.removeEventListener("hashchange", listener);
    window.removeEventListener(CHANGE_EVENT, listener);
  };
}

/** The page's path where there is no `location` (the server's render): the base path it serves the page under. */
let renderedPathname = "/";

/** Sets the path links are written with on the server (web/entry-server.tsx), where there is no `location`. */
export function setRenderedPathname(pathname: string): void {
  renderedPathname = pathname;
}

/** The URL of a state (for links that open in a new tab, and for tests). */
export function urlOf(state: ViewState): string {
  const text = serializeViewState(state).toString();
  if (stateInHash()) return `${location.pathname}${location.search}#${text}`;
  const pathname = typeof location === "undefined" ? renderedPathname : location.pathname;
  return `${pathname}${text === "" ? "" : `?${text}`}`;
}

/** Applies `patch` to the current state and writes the URL (a new history entry unless `replace`). */
export function navigate(patch: ViewPatch, options: { replace?: boolean } = {}): void {
  const next = applyPatch(readViewState(), patch);
  const url = urlOf(next);
  if (url === `${location.pathname}${location.search}${location.hash}`) return;
  if (stateInHash()) {
    if (options.replace) location.replace(url);
    else location.hash = serializeViewState(next).toString();
  } else if (options.replace) {
    history.replaceState(null, "", url);
  } else {
    history.pushState(null, "", url);
  }
  window.dispatchEvent(new Event(CHANGE_EVENT));
}

/** The view state, re-rendering on every navigation (including back/forward). */
export function useViewState(): ViewState {
  return useSyncExternalStore(subscribe, readViewState, readViewState);
}

/** `navigate`, for components. */
export function useNavigate(): typeof navigate {
  return useCallback(navigate, []);
}
