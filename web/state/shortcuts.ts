/**
 * Keyboard shortcuts. Views and overlays register keymaps (`useKeymap`); one window
 * listener dispatches each key to the most recently registered active keymap that handles
 * it. Keys are ignored while typing in a field, except `mod+k` and `escape`.
 */
import { useEffect, useRef } from "react";

/** Returns false to let the key fall through to earlier keymaps. */
export type KeyHandler = (event: KeyboardEvent) => boolean | void;
export type Keymap = Readonly<Record<string, KeyHandler>>;

interface Layer {
  readonly id: number;
  readonly map: Keymap;
}

const layers: Layer[] = [];
let nextId = 1;

/** `j`, `shift+n`, `mod+k`, `escape`, `arrowleft`, `?`, `/`, `[` … */
export function keyName(event: Pick<KeyboardEvent, "key" | "ctrlKey" | "metaKey" | "altKey" | "shiftKey">): string {
  const key = event.key.length === 1 ? event.key.toLowerCase() : event.key.toLowerCase();
  const parts: string[] = [];
  if (event.ctrlKey || event.metaKey) parts.push("mod");
  if (event.altKey) parts.push("alt");
  // Shift matters for letters (N vs n) and named keys; for symbols it is part of the symbol (`?`).
  if (event.shiftKey && (/^[a-z]$/.test(key) || event.key.length > 1)) parts.push("shift");
  parts.push(key);
  return parts.join("+");
}

/** True when the event comes from a place where keys are text (inputs, editors). */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target.closest(".cm-editor") !== null) return true;
  const tag = target.tagName;
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag === "INPUT") {
    const type = (target as HTMLInputElement).type;
    return !["checkbox", "radio", "button", "submit", "range"].includes(type);
  }
  return false;
}

const ALWAYS = new Set(["mod+k", "escape"]);

let captured: () => boolean = () => false;

/**
 * While `isCaptured()` is true (the command palette is open, or opening), no shortcut runs but
 * Esc and ⌘K/Ctrl+K: keys typed right after ⌘K belong to the palette, even before it has focus.
 */
export function captureKeysWhile(isCaptured: () => boolean): void {
  captured = isCaptured;
}

/** Dispatches one key event; true when a keymap handled it. */
export function dispatchKey(event: KeyboardEvent): boolean {
  const name = keyName(event);
  if ((isTyping(event.target) || captured()) && !ALWAYS.has(name)) return false;
  for (let i = layers.length - 1; i >= 0; i--) {
    const handler = layers[i]?.map[name];
    if (handler !== undefined && handler(event) !== false) {
      event.preventDefault();
      return true;
    }
  }
  return false;
}

/** Installs the window listener (once, from the app root). */
export function useShortcutListener(): void {
  useEffect(() => {
    const listener = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.isComposing) return;
      dispatchKey(event);
    };
    window.addEventListener("keydown", listener);
    return () => window.removeEventListener("keydown", listener);
  }, []);
}

/**
 * A handler for `g` that runs `action` when `g` is pressed twice within 400 ms (vim's `gg`).
 * Each keymap that wants `gg` keeps its own.
 */
export function doubleKey(action: () => void, withinMs = 400): KeyHandler {
  let last = 0;
  return () => {
    const now = Date.now();
    if (now - last <= withinMs) {
      last = 0;
      action();
    } else {
      last = now;
    }
  };
}

/** Registers `map` while the component is mounted and `active`; the newest keymap wins. */
export function useKeymap(map: Keymap, active = true): void {
  const latest = useRef(map);
  latest.current = map;
  useEffect(() => {
    if (!active) return;
    // The layer reads the newest map through the ref, so re-renders never reorder layers.
    const entry: Layer = {
      id: nextId++,
      get map() {
        return latest.current;
      },
    };
    layers.push(entry);
    return () => {
      const index = layers.indexOf(entry);
      if (index !== -1) layers.splice(index, 1);
    };
  }, [active]);
}
