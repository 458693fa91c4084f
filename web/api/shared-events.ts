/**
 * One server-sent-events connection per browser, shared by every tab of the viewer. Browsers
 * allow six HTTP/1.1 connections per host, and a stream held by each tab left the seventh tab
 * without a connection to load anything. So tabs elect a leader with the Web Locks API (a
 * tab holds the lock while it lives; the browser releases it when the tab goes): the leader
 * alone holds the `EventSource` and relays each event to the other tabs over a
 * `BroadcastChannel`. When it closes, the next tab in line takes the lock and connects, and
 * tells every tab to refresh (events may have been missed in between). Where either API is
 * missing, each tab connects on its own, as before.
 */

/** An event from the server (`change`, `indexed`), or `reconnect`: refresh everything. */
export interface SharedEvent {
  readonly type: "change" | "indexed" | "reconnect";
  /** The event's data as sent (JSON text), or null. */
  readonly data: string | null;
}

const RELAYED = ["change", "indexed"] as const;

interface LockManagerLike {
  request(name: string, options: { signal?: AbortSignal }, callback: () => Promise<void>): Promise<void>;
}

function lockManager(): LockManagerLike | null {
  const locks = (globalThis.navigator as { locks?: LockManagerLike } | undefined)?.locks;
  return locks !== undefined && typeof BroadcastChannel === "function" ? locks : null;
}

/**
 * Whether a `hello`'s `changed_at` (or `indexed_at`: `field`; server clock, the server is on
 * this machine) is later than this page's start.
 */
export function missedChange(hello: string | null, pageStart: number = performance.timeOrigin, field: "changed_at" | "indexed_at" = "changed_at"): boolean {
  try {
    const changedAt = (JSON.parse(hello ?? "null") as Record<string, unknown> | null)?.[field];
    return typeof changedAt === "number" && changedAt >= pageStart;
  } catch {
    return false;
  }
}

/** Holds an EventSource on `url`, calling `emit` for each event; returns the close function. */
function connect(url: string, emit: (event: SharedEvent) => void, reconnectFirst: boolean): () => void {
  const source = new EventSource(url);
  let opened = false;
  for (const type of RELAYED) source.addEventListener(type, (message) => emit({ type, data: (message as MessageEvent<string>).data ?? null }));
  source.addEventListener("open", () => {
    // After a lost connection (server restarted) or a change of leader, anything may have changed.
    if (opened || reconnectFirst) emit({ type: "reconnect", data: null });
    opened = true;
  });
  // A change the server sent after this page started loading but before this stream opened
  // was missed: the page's data may predate it (the hello says when the last one was sent).
  source.addEventListener("hello", (message) => {
    const hello = (message as MessageEvent<string>).data;
    if (missedChange(hello)) emit({ type: "reconnect", data: null });
    else if (missedChange(hello, performance.timeOrigin, "indexed_at")) emit({ type: "indexed", data: null });
  });
  return () => source.close();
}

/** Calls `onEvent` for the server's events at `url`, over one connection per browser. */
export function subscribeShared(url: string, onEvent: (event: SharedEvent) => void): () => void {
  if (typeof EventSource === "undefined") return () => undefined;
  const locks = lockManager();
  if (locks === null) return connect(url, onEvent, false);
  const name = `wink-debug-events ${new URL(url, location.href).href}`;
  const channel = new BroadcastChannel(name);
  channel.onmessage = (message: MessageEvent<SharedEvent>) => onEvent(message.data);
  const stop = new AbortController();
  const requested = Date.now();
  void locks
    .request(name, { signal: stop.signal }, async () => {
      if (stop.signal.aborted) return;
      // A tab that waited for the lock took over from a leader that left: refresh on connect.
      const close = connect(
        url,
        (event) => {
          onEvent(event);
          channel.postMessage(event);
        },
        Date.now() - requested > 1000,
      );
      await new Promise<void>((resolve) => stop.signal.addEventListener("abort", () => resolve(), { once: true }));
      close();
    })
    .catch(() => undefined); // aborted while waiting: this tab closed before its turn
  return () => {
    stop.abort();
    channel.close();
  };
}
