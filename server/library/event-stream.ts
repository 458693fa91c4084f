/**
 * Server-sent events to browsers (`GET /api/events`): one long-lived response per tab,
 * `change` events when the directory changes, `select` when the current snapshot changes,
 * and a comment every 15 s so proxies and browsers keep the connection. The `hello` a stream
 * starts with says when the last `change` was sent (`changed_at`, ms since the epoch) and the
 * last `indexed` (`indexed_at`): a page whose data was fetched before its stream opened may
 * have missed them (a missed `indexed` refreshes its run lists only, not everything).
 */
import type { ServerResponse } from "node:http";
import { toStrictJson } from "../../shared/session/index.js";
import { SECURITY_HEADERS } from "../http/response-headers.js";

const HEARTBEAT_MS = 15_000;
/** How long `sendSoon` gathers calls into one event. */
export const COALESCE_MS = 250;

export class EventStream {
  readonly #clients = new Set<ServerResponse>();
  #heartbeat: NodeJS.Timeout | null = null;
  /** When the last `change` and the last `indexed` were sent (`Date.now()`), or null. */
  #changedAt: number | null = null;
  #indexedAt: number | null = null;
  /** Events `sendSoon` will send, by name. */
  readonly #soon = new Map<string, NodeJS.Timeout>();

  get clientCount(): number {
    return this.#clients.size;
  }

  /** Takes over a response and keeps it open until the client goes or `close()` is called. */
  attach(response: ServerResponse, hello: Record<string, unknown>): void {
    response.writeHead(200, {
      ...SECURITY_HEADERS,
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    });
    // A HEAD answer has no body: kept open, it would hold the connection for ever, sending nothing.
    if (response.req.method === "HEAD") {
      response.end();
      return;
    }
    response.write(`retry: 2000\n${frame("hello", { ...hello, changed_at: this.#changedAt, indexed_at: this.#indexedAt })}`);
    this.#clients.add(response);
    response.on("close", () => this.#clients.delete(response));
    if (this.#heartbeat === null) {
      this.#heartbeat = setInterval(() => this.#write(": ping\n\n"), HEARTBEAT_MS);
      this.#heartbeat.unref();
    }
  }

  /** Sends one event to every client. */
  send(event: string, data: unknown): void {
    if (event === "change") this.#changedAt = Date.now();
    if (event === "indexed") this.#indexedAt = Date.now();
    this.#write(frame(event, data));
  }

  /**
   * Sends `event` once for all the calls made within `ms` of the first, its data taken when it
   * is sent: the runs of a sidebar page slow to index are ready within moments of each other,
   * and each `indexed` made every page ask its run lists (and the landing run) again.
   */
  sendSoon(event: string, data: () => unknown, ms = COALESCE_MS): void {
    if (this.#soon.has(event)) return;
    const timer = setTimeout(() => {
      this.#soon.delete(event);
      this.send(event, data());
    }, ms);
    timer.unref();
    this.#soon.set(event, timer);
  }

  /** Ends every stream (server shutdown). */
  close(): void {
    for (const timer of this.#soon.values()) clearTimeout(timer);
    this.#soon.clear();
    if (this.#heartbeat !== null) clearInterval(this.#heartbeat);
    this.#heartbeat = null;
    for (const client of this.#clients) client.end();
    this.#clients.clear();
  }

  #write(text: string): void {
    for (const client of this.#clients) if (!client.writableEnded) client.write(text);
  }
}

function frame(event: string, data: unknown): string {
  // toStrictJson escapes newlines inside strings, so the data is always one line.
  return `event: ${event}\ndata: ${toStrictJson(data)}\n\n`;
}
