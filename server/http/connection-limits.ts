/**
 * How many connections the server holds, and how long an idle one stays. Every open
 * connection counts (event streams and downloads too); a connection is *idle* while no request
 * of its is being answered: just opened, receiving headers (a slowloris), or kept alive
 * between two requests. As a connection comes in, the one idle longest is closed while idle
 * ones hold more than `maxConnections − reserve` or all of them more than `maxConnections`:
 * so a fresh request (the viewer's page) always gets a connection while someone else holds an
 * idle one, the reserve stays for requests being answered, and the process never runs out of
 * descriptors (which stops it accepting anything at all). A connection whose request is being
 * answered is never closed here: when those fill every place, a new connection is closed at
 * once. Used on the CLI's server (`first-stage.ts`) and on a server Fastify creates (`app.ts`).
 */
import { readFileSync } from "node:fs";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";

/** How long a connection stays open after its last answer without a new request. */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 5_000;
/** Descriptors left for what the server opens itself: files, archives, the worker, watchers, a store's sockets, git. */
export const FILE_HEADROOM = 256;
/** The default cap's ceiling: a viewer on loopback needs a few dozen connections, not the whole descriptor table. */
export const MAX_DEFAULT_CONNECTIONS = 4_096;
/** The open-file limit assumed where it cannot be read (1,024: a common desktop default). */
const ASSUMED_FILE_LIMIT = 1_024;
/** Connections kept free of idle ones (at most a quarter of the cap). */
export const DEFAULT_RESERVE = 32;
/** The least cap: below it the reserve leaves no room for a page's parallel requests. */
export const MIN_CONNECTIONS = 8;

export interface ConnectionLimits {
  /** Most connections open at once (default: `defaultMaxConnections(openFileLimit())`). */
  readonly maxConnections?: number;
  /** Connections never held by idle ones (default: 32, at most a quarter of the cap). */
  readonly reserve?: number;
  readonly keepAliveTimeoutMs?: number;
}

export interface ConnectionCount {
  readonly max: number;
  readonly reserve: number;
  readonly open: number;
  readonly idle: number;
  /** Idle connections closed to make room so far. */
  readonly shed: number;
  /** New connections closed at once because every other one was busy. */
  readonly refused: number;
}

/** The process's soft limit of open files (Linux: `/proc/self/limits`), or null where it cannot be read. */
export function openFileLimit(limitsText?: string): number | null {
  let text = limitsText;
  if (text === undefined) {
    try {
      text = readFileSync("/proc/self/limits", "utf8");
    } catch {
      return null;
    }
  }
  const match = /^Max open files\s+(\d+)\s/m.exec(text);
  return match === null ? null : Number(match[1]);
}

/** The cap for an open-file limit: the limit less the files' headroom (at least half of it), within `MIN_CONNECTIONS`…`MAX_DEFAULT_CONNECTIONS`. */
export function defaultMaxConnections(fileLimit: number | null): number {
  const limit = fileLimit ?? ASSUMED_FILE_LIMIT;
  return Math.min(MAX_DEFAULT_CONNECTIONS, Math.max(MIN_CONNECTIONS, limit - FILE_HEADROOM, Math.floor(limit / 2)));
}

/** Counts `server`'s connections and holds them to `limits`; sets its keep-alive timeout. */
export function limitConnections(server: Server, limits: ConnectionLimits = {}): ConnectionCount {
  const max = limits.maxConnections ?? defaultMaxConnections(openFileLimit());
  if (!Number.isInteger(max) || max < 1) throw new RangeError(`maxConnections must be a whole number, at least 1, got ${max}`);
  const reserve = limits.reserve ?? Math.min(DEFAULT_RESERVE, Math.floor(max / 4));
  if (!Number.isInteger(reserve) || reserve < 0 || reserve >= max) throw new RangeError(`reserve must be a whole number below maxConnections (${max}), got ${reserve}`);
  server.keepAliveTimeout = limits.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS;

  /** Requests being answered per open connection. */
  const open = new Map<Socket, number>();
  /** Idle connections, the one idle longest first (a Set keeps insertion order). */
  const idle = new Set<Socket>();
  let shed = 0;
  let refused = 0;

  server.on("connection", (socket: Socket) => {
    open.set(socket, 0);
    idle.add(socket);
    socket.once("close", () => {
      open.delete(socket);
      idle.delete(socket);
    });
    for (const oldest of idle) {
      if (idle.size <= max - reserve && open.size <= max) break;
      if (oldest === socket) continue;
      // Forgotten now, not at its 'close': the next one counts without it.
      open.delete(oldest);
      idle.delete(oldest);
      shed += 1;
      oldest.destroy();
    }
    if (open.size > max) {
      open.delete(socket);
      idle.delete(socket);
      refused += 1;
      socket.destroy();
    }
  });

  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    const busy = open.get(socket);
    if (busy === undefined) return;
    open.set(socket, busy + 1);
    idle.delete(socket);
    response.once("close", () => {
      const busyNow = open.get(socket);
      if (busyNow === undefined) return;
      const left = busyNow - 1;
      open.set(socket, left);
      // At the end of the line: idle from now.
      if (left === 0) idle.add(socket);
    });
  });

  return {
    max,
    reserve,
    get open() {
      return open.size;
    },
    get idle() {
      return idle.size;
    },
    get shed() {
      return shed;
    },
    get refused() {
      return refused;
    },
  };
}
