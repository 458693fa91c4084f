/**
 * WINK type identifiers (`module:Qualname`) and the event/state split of slices.
 */
import type { JsonObject, JsonValue } from "./json-value.js";
import { isJsonObject } from "./json-value.js";

/**
 * The class name of a type identifier: the part after the last `:` or `.`
 * (`"weakincentives.runtime.events._types:ToolInvoked"` → `"ToolInvoked"`,
 * `"a.b.Foo"` → `"Foo"`, `"Outer.Inner"` qualnames → `"Inner"`).
 */
export function displayName(typeId: string): string {
  const cut = Math.max(typeId.lastIndexOf(":"), typeId.lastIndexOf("."));
  const name = typeId.slice(cut + 1);
  return name === "" ? typeId : name;
}

/** Whether a slice holds events (tool calls, prompts) or state (plans, files…). */
export type SliceKind = "event" | "state";

/** An item is an event when it has both `event_id` and `created_at` (WINK's own rule). */
export function isEventItem(item: JsonValue | undefined): boolean {
  return (
    isJsonObject(item) &&
    Object.prototype.hasOwnProperty.call(item, "event_id") &&
    Object.prototype.hasOwnProperty.call(item, "created_at")
  );
}

/** A slice is an event slice when its first item is an event; an empty slice is state. */
export function sliceKindOf(items: readonly JsonObject[]): SliceKind {
  return isEventItem(items[0]) ? "event" : "state";
}
