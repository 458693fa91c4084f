// @vitest-environment happy-dom
import { cleanup, renderHook } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { captureKeysWhile, dispatchKey, keyName, useKeymap } from "./shortcuts.js";

function press(key: string, init: KeyboardEventInit = {}, target: EventTarget = document.body): boolean {
  const event = new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true, ...init });
  Object.defineProperty(event, "target", { value: target });
  return dispatchKey(event);
}

afterEach(() => cleanup());

describe("keyboard shortcuts", () => {
  it("names keys the way keymaps spell them", () => {
    expect(keyName({ key: "N", shiftKey: true, ctrlKey: false, metaKey: false, altKey: false })).toBe("shift+n");
    expect(keyName({ key: "?", shiftKey: true, ctrlKey: false, metaKey: false, altKey: false })).toBe("?");
    expect(keyName({ key: "k", shiftKey: false, ctrlKey: false, metaKey: true, altKey: false })).toBe("mod+k");
    expect(keyName({ key: "ArrowLeft", shiftKey: false, ctrlKey: false, metaKey: false, altKey: false })).toBe("arrowleft");
  });

  it("gives a key to the newest keymap that handles it, falling through on false", () => {
    const outer = vi.fn();
    const inner = vi.fn(() => false);
    renderHook(() => useKeymap({ j: outer, k: outer }));
    const { unmount } = renderHook(() => useKeymap({ j: inner }));
    expect(press("j")).toBe(true);
    expect(inner).toHaveBeenCalledTimes(1);
    expect(outer).toHaveBeenCalledTimes(1);
    unmount();
    press("j");
    expect(inner).toHaveBeenCalledTimes(1);
    expect(outer).toHaveBeenCalledTimes(2);
  });

  it("ignores keys typed into fields, except mod+k and Escape", () => {
    const handler = vi.fn();
    renderHook(() => useKeymap({ j: handler, "mod+k": handler, escape: handler }));
    const input = document.createElement("input");
    document.body.append(input);
    expect(press("j", {}, input)).toBe(false);
    expect(press("k", { ctrlKey: true }, input)).toBe(true);
    expect(press("Escape", {}, input)).toBe(true);
    expect(handler).toHaveBeenCalledTimes(2);
  });

  it("while keys are captured (the palette opening), only Esc and mod+k run", () => {
    const handler = vi.fn();
    renderHook(() => useKeymap({ d: handler, escape: handler }));
    let open = true;
    captureKeysWhile(() => open);
    expect(press("d")).toBe(false);
    expect(press("Escape")).toBe(true);
    open = false;
    expect(press("d")).toBe(true);
    expect(handler).toHaveBeenCalledTimes(2);
    captureKeysWhile(() => false);
  });

  it("inactive keymaps do not receive keys", () => {
    const handler = vi.fn();
    renderHook(() => useKeymap({ x: handler }, false));
    expect(press("x")).toBe(false);
    expect(handler).not.toHaveBeenCalled();
  });
});
