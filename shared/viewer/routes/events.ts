/**
 * `GET /api/events`: the server-sent events of live reload, each event's name and the JSON
 * its `data` carries. Written once: the server sends them (server/library/event-stream.ts)
 * and the web app reads them (web/api/http-api.ts, web/queries/useLiveReload.ts).
 */
import { Type } from "typebox";
import type { Static } from "typebox";

/** `change`: session files or archives appeared, changed or disappeared (paths relative to the served directory). */
export const ChangeEvent = Type.Object({
  added: Type.Array(Type.String()),
  changed: Type.Array(Type.String()),
  removed: Type.Array(Type.String()),
  /** Archive files (relative to the root) that changed. */
  archives: Type.Array(Type.String()),
});

/** `select`: the server's current snapshot changed (WINK's `/api/select`, `/api/switch`); line 0: a bundle without a session. */
export const SelectEvent = Type.Object({ file: Type.String(), line_number: Type.Integer({ minimum: 0 }) });

/** `indexed`: background indexing finished. */
export const IndexedEvent = Type.Object({ files: Type.Integer({ minimum: 0 }) });

/**
 * `hello`: the first event of every stream. `changed_at`: when the last `change` was sent
 * (ms since the epoch), `indexed_at` the last `indexed`, so a page that fetched before its
 * stream opened knows it may have missed one (and which: a missed `indexed` refreshes its
 * run lists, a missed `change` everything).
 */
export const HelloEvent = Type.Object({
  current: Type.Union([Type.Object({ file: Type.String(), line: Type.Integer() }), Type.Null()]),
  changed_at: Type.Union([Type.Number(), Type.Null()]),
  indexed_at: Type.Union([Type.Number(), Type.Null()]),
});

/** Every event of the stream by name. */
export const LIVE_EVENTS = { hello: HelloEvent, change: ChangeEvent, select: SelectEvent, indexed: IndexedEvent } as const;

/** The events of the stream by name, as the JSON of their `data`. */
export type LiveEvents = { [Name in keyof typeof LIVE_EVENTS]: Static<(typeof LIVE_EVENTS)[Name]> };
export type LiveEventName = keyof LiveEvents;
/** What the `change` event carries. */
export type ChangeNotice = LiveEvents["change"];
