/**
 * The CLI's first stage: a `node:http` server that listens and answers the first
 * `GET /api/meta` (the current snapshot, what the viewer asks first) while Fastify and the
 * routes load, with the bytes the full app would send: the same host/origin checks
 * (`http/request-origin.ts`), security headers (`http/response-headers.ts`), meta
 * (`library/snapshot-meta.ts`), strict JSON and error bodies. Every other request waits,
 * unread, until `handOver` gives the server to Fastify (`buildApp({ server })`), which then
 * answers the waiting requests in their order and everything after. With `--tls-cert` it
 * is an HTTPS server from the start (the app is given it as it is); with `--public-url` it
 * answers the meta under the base path.
 */
import http from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import https from "node:https";
import { toStrictJson } from "../shared/session/index.js";
import { describeError, errorJson } from "./http/errors.js";
import { limitConnections } from "./http/connection-limits.js";
import type { ConnectionCount, ConnectionLimits } from "./http/connection-limits.js";
import { LOCAL_BASE_PATH, basePathOf } from "./http/public-address.js";
import type { PublicAddress } from "./http/public-address.js";
import { originPolicy, refuseUpgrades, requestRefusal } from "./http/request-origin.js";
import type { TlsFiles } from "./http/tls-files.js";
import { addSecurityHeaders } from "./http/response-headers.js";
import { metaFor } from "./library/snapshot-meta.js";
import type { ViewerState } from "./library/viewer-state.js";

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * How long a client may take to send a request's headers, and the whole request (body
 * included). Only receiving is bounded: an answer (the event stream, a large download) may
 * take as long as it takes. Without them a slowloris client keeps its socket forever.
 */
export interface ReceiveTimeouts {
  readonly headersTimeoutMs?: number;
  readonly requestTimeoutMs?: number;
  /** How often Node checks those timeouts (its default: 30 s). */
  readonly checkIntervalMs?: number;
}

export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const DEFAULT_CHECK_INTERVAL_MS = 1_000;

/** The content type Fastify's reply gives strict JSON (and the error handler its bodies). */
const JSON_TYPE = "application/json; charset=utf-8";

export interface FirstStage {
  readonly server: Server;
  /** Its connections, held to the limits given (`http/connection-limits.ts`), the full app's too. */
  readonly connections: ConnectionCount;
  /** Requests answered by the first stage so far. */
  readonly answered: number;
  /** Resolves once a request was answered or is waiting: the full app is wanted now. */
  readonly wanted: Promise<void>;
  /** Gives every later request, and those waiting, to `handler` (Fastify's, once the app is ready). */
  handOver(handler: Handler): void;
  /** Closes the server and its connections (a signal before the hand-over). */
  close(): Promise<void>;
}

/** Headers in the order Fastify's reply writes them: the type, the security headers, the length. */
function send(routeUrl: string, response: ServerResponse, status: number, body: string): void {
  const headers: Record<string, string> = { "content-type": JSON_TYPE };
  addSecurityHeaders(routeUrl, { hasHeader: (name) => name in headers, header: (name, value) => (headers[name] = value) });
  headers["content-length"] = String(Buffer.byteLength(body));
  response.writeHead(status, headers);
  response.end(body);
}

/** Where the first stage is reached: the bound address, the public address, and the certificate it serves HTTPS with. */
export interface FirstStageAddress {
  readonly bindHost?: string;
  readonly publicAddress?: PublicAddress;
  readonly tls?: TlsFiles;
  /** Hold every request for the full app (served mode: whether one is signed in is the app's to tell). */
  readonly holdEverything?: boolean;
}

/**
 * A server for `state` that answers `GET /api/meta` (no query) itself and holds every other
 * request for the full app. `bindHost`: the address it will listen on (allowed as a Host);
 * the connection cap and keep-alive (`http/connection-limits.ts`) hold for the full app too.
 */
export function createFirstStage(state: ViewerState, options: FirstStageAddress & ReceiveTimeouts & ConnectionLimits = {}): FirstStage {
  const origin = { bindHost: options.bindHost, publicAddress: options.publicAddress, secure: options.tls !== undefined };
  const policy = originPolicy(origin);
  const basePath = basePathOf(options.publicAddress);
  const metaUrl = basePath === LOCAL_BASE_PATH ? "/api/meta" : `${basePath}api/meta`;
  const waiting: [IncomingMessage, ServerResponse][] = [];
  let handler: Handler | null = null;
  let answered = 0;
  let wantedNow = (): void => undefined;
  const wanted = new Promise<void>((resolve) => (wantedNow = resolve));
  // A request that changes the current snapshot (POST /api/select…) waits for the full app:
  // a later /api/meta waits behind it, so answers keep the order the requests came in.
  let changeWaiting = false;

  const hold = (request: IncomingMessage, response: ServerResponse): void => {
    if (handler !== null) handler(request, response);
    else waiting.push([request, response]);
    wantedNow();
  };

  const onRequest = (request: IncomingMessage, response: ServerResponse): void => {
    if (options.holdEverything === true || request.method !== "GET" || request.url !== metaUrl || changeWaiting) {
      if (request.method !== "GET" && request.method !== "HEAD") changeWaiting = true;
      hold(request, response);
      return;
    }
    const refusal = requestRefusal(request.headers, policy);
    if (refusal !== null) {
      answered += 1;
      send("/api/meta", response, refusal.statusCode, errorJson(describeError(refusal)));
      wantedNow();
      return;
    }
    metaFor(state, {}).then(
      (meta) => {
        answered += 1;
        send("/api/meta", response, 200, toStrictJson(meta));
        wantedNow();
      },
      // Whatever failed is the full app's to answer (and log): it resolves the meta again.
      () => hold(request, response),
    );
  };

  const timeouts = {
    headersTimeout: options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS,
    requestTimeout: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    connectionsCheckingInterval: options.checkIntervalMs ?? DEFAULT_CHECK_INTERVAL_MS,
  };
  // An HTTPS server has every method of an HTTP one the app uses (it is Node's HTTP server over TLS sockets).
  const server: Server = options.tls === undefined ? http.createServer(timeouts, onRequest) : (https.createServer({ ...timeouts, cert: options.tls.cert, key: options.tls.key }, onRequest) as unknown as Server);
  server.setTimeout(0);
  const connections = limitConnections(server, options);
  server.on("upgrade", refuseUpgrades(origin));

  return {
    server,
    connections,
    wanted,
    get answered() {
      return answered;
    },
    handOver(fastifyHandler) {
      server.removeListener("request", onRequest);
      server.on("request", fastifyHandler);
      handler = fastifyHandler;
      for (const [request, response] of waiting.splice(0)) fastifyHandler(request, response);
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
