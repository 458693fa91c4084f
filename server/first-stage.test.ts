// The CLI's first stage (server/first-stage.ts): its /api/meta and refusals against the full
// app's, byte for byte over real loopback HTTP, and the hand-over of waiting requests to Fastify.
import http from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WINK_BUNDLE_FIXTURES } from "../fixtures/paths.js";
import { buildApp } from "./app.js";
import type { WinkApp } from "./app.js";
import { createFirstStage } from "./first-stage.js";
import type { FirstStage } from "./first-stage.js";
import { closeServedState, openServedState } from "./library/served-state.js";
import { FIXTURES } from "./server.test-support.js";

interface RawAnswer {
  readonly status: string;
  /** Every header as sent, in order and case, but `Date`. */
  readonly headers: string[];
  readonly body: string;
}

/** One request on its own keep-alive connection, as a browser sends it; the answer as sent. */
function request(port: number, url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawAnswer> {
  const agent = new http.Agent({ keepAlive: true });
  return new Promise((resolve, reject) => {
    const outgoing = http.request({ host: "127.0.0.1", port, path: url, method: options.method ?? "GET", headers: options.headers ?? {}, agent }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => {
        agent.destroy();
        const headers: string[] = [];
        for (let i = 0; i < response.rawHeaders.length; i += 2) if (response.rawHeaders[i] !== "Date") headers.push(`${response.rawHeaders[i]}: ${response.rawHeaders[i + 1]}`);
        resolve({ status: `${response.statusCode} ${response.statusMessage}`, headers, body });
      });
    });
    outgoing.on("error", reject);
    outgoing.end(options.body);
  });
}

function portOf(server: net.Server): number {
  return (server.address() as AddressInfo).port;
}

const stages: FirstStage[] = [];
const apps: WinkApp[] = [];

afterEach(async () => {
  for (const app of apps.splice(0)) await app.app.close();
  for (const stage of stages.splice(0)) await stage.close().catch(() => undefined);
});

/** A first stage on `dir`, listening on a free loopback port (not handed over). */
async function firstStage(dir: string): Promise<{ stage: FirstStage; port: number; close: () => Promise<void> }> {
  const served = await openServedState({ path: dir });
  const stage = createFirstStage(served.state, { bindHost: "127.0.0.1" });
  stages.push(stage);
  await new Promise<void>((resolve) => stage.server.listen({ host: "127.0.0.1", port: 0 }, resolve));
  return { stage, port: portOf(stage.server), close: () => closeServedState(served) };
}

/** The full app on `dir`, listening as the CLI listened before the first stage existed. */
async function fullApp(dir: string): Promise<number> {
  const app = await buildApp({ path: dir, bindHost: "127.0.0.1", watch: false, indexInBackground: false });
  apps.push(app);
  await app.app.listen({ host: "127.0.0.1", port: 0 });
  return portOf(app.app.server);
}

const CASES = [
  ["a session file's first line", path.join(FIXTURES, "fszip-pr633")],
  ["a folder of debug bundles (bundle meta)", path.join(WINK_BUNDLE_FIXTURES, "02-failed-run")],
] as const;

describe("the CLI's first stage", () => {
  it.each(CASES)("answers GET /api/meta with the full app's status, headers and body, byte for byte: %s", async (_name, dir) => {
    const first = await firstStage(dir);
    const full = await fullApp(dir);
    const early = await request(first.port, "/api/meta");
    const late = await request(full, "/api/meta");
    expect(first.stage.answered).toBe(1);
    expect(early.status).toBe("200 OK");
    expect(JSON.parse(early.body)).toHaveProperty("line_number");
    expect(early).toEqual(late);
    // The same keep-alive (http/connection-limits.ts) on the CLI's server and on one Fastify creates.
    expect(early.headers).toContain("Keep-Alive: timeout=5");
    expect(early.headers).toContain("x-frame-options: DENY");
    expect(early.headers).toContain("cache-control: no-store");
    await first.close();
  });

  it("refuses a foreign Host, a missing one, another Origin and a cross-site fetch as the full app does", async () => {
    const dir = path.join(FIXTURES, "fszip-pr633");
    const first = await firstStage(dir);
    const full = await fullApp(dir);
    const hostile: Record<string, string>[] = [
      { host: "attacker.example:8000" },
      { host: "0.0.0.0" },
      { host: "127.0.0.1", origin: "http://attacker.example" },
      { host: "127.0.0.1", "sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors" },
    ];
    for (const headers of hostile) {
      const early = await request(first.port, "/api/meta", { headers });
      const late = await request(full, "/api/meta", { headers });
      expect(early.status).toMatch(/^403 /);
      expect(early).toEqual(late);
    }
    // A request without Host (HTTP/1.0) is 400, from both.
    const raw = async (port: number) =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, "127.0.0.1", () => socket.end("GET /api/meta HTTP/1.0\r\n\r\n"));
        let text = "";
        socket.on("data", (chunk) => (text += chunk.toString()));
        socket.on("end", () => resolve(text.replace(/\r\nDate: [^\r]*/, "")));
        socket.on("error", reject);
      });
    const early = await raw(first.port);
    expect(early).toMatch(/^HTTP\/1\.1 400 /);
    expect(early).toContain('"code":"WD_ERR_NO_HOST"');
    expect(early).toBe(await raw(full));
    expect(first.stage.answered).toBe(hostile.length + 1);
    await first.close();
  });

  it("refuses WebSocket upgrades before the hand-over, with the full app's checks", async () => {
    const first = await firstStage(path.join(FIXTURES, "fszip-pr633"));
    const upgrade = (host: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(first.port, "127.0.0.1", () => socket.write(`GET /ws HTTP/1.1\r\nHost: ${host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n`));
        let text = "";
        socket.on("data", (chunk) => (text += chunk.toString()));
        socket.on("end", () => resolve(text));
        socket.on("error", reject);
      });
    expect(await upgrade("evil.example")).toMatch(/^HTTP\/1\.1 403 Forbidden[\s\S]*WD_ERR_HOST/);
    expect(await upgrade(`127.0.0.1:${first.port}`)).toMatch(/^HTTP\/1\.1 404 Not Found[\s\S]*WD_ERR_NOT_FOUND/);
    await first.close();
  });

  it("holds every other request, and /api/meta behind a change, until Fastify takes the server over; then answers them in order", async () => {
    const dir = path.join(FIXTURES, "fszip-pr633");
    const served = await openServedState({ path: dir });
    const stage = createFirstStage(served.state, { bindHost: "127.0.0.1" });
    stages.push(stage);
    await new Promise<void>((resolve) => stage.server.listen({ host: "127.0.0.1", port: 0 }, resolve));
    const port = portOf(stage.server);
    const meta = await request(port, "/api/meta");
    const snapshots = request(port, "/api/snapshots");
    const page = request(port, "/api/meta?line=1");
    // A change of the current snapshot waits; a /api/meta after it must see the change, so it waits too.
    const reload = request(port, "/api/reload", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    const afterReload = request(port, "/api/meta");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(stage.answered).toBe(1);
    const app = await buildApp({ path: dir, served, server: stage.server, bindHost: "127.0.0.1", watch: false, indexInBackground: false });
    apps.push(app);
    expect(app.handler).not.toBeNull();
    await app.app.ready();
    if (app.handler !== null) stage.handOver(app.handler);
    expect((await snapshots).status).toBe("200 OK");
    expect(JSON.parse((await snapshots).body)).toHaveLength(1);
    expect(JSON.parse((await page).body)).toMatchObject({ line_number: 1 });
    expect((await reload).status).toBe("200 OK");
    expect(await afterReload).toEqual(meta);
    expect(stage.answered).toBe(1);
    // Later requests go to Fastify, on the same listening server.
    const later = await request(port, "/api/meta");
    expect(later).toEqual(meta);
    expect(stage.answered).toBe(1);
    expect((await request(port, "/api/meta", { headers: { host: "attacker.example" } })).status).toMatch(/^403 /);
    // Closing the app closes the server it was given, connections included.
    apps.splice(0);
    await app.app.close();
    expect(stage.server.listening).toBe(false);
  });

  it("cuts a client that never finishes its headers or its body, and keeps an answer that takes long (the event stream) open", async () => {
    const dir = path.join(FIXTURES, "fszip-pr633");
    const served = await openServedState({ path: dir });
    const stage = createFirstStage(served.state, { bindHost: "127.0.0.1", headersTimeoutMs: 300, requestTimeoutMs: 600, checkIntervalMs: 100 });
    stages.push(stage);
    await new Promise<void>((resolve) => stage.server.listen({ host: "127.0.0.1", port: 0 }, resolve));
    const port = portOf(stage.server);
    const app = await buildApp({ path: dir, served, server: stage.server, bindHost: "127.0.0.1", watch: false, indexInBackground: false });
    apps.push(app);
    await app.app.ready();
    if (app.handler !== null) stage.handOver(app.handler);
    const closedWithin = (socket: net.Socket, ms: number): Promise<boolean> =>
      new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), ms);
        socket.on("close", () => {
          clearTimeout(timer);
          resolve(true);
        });
        socket.on("error", () => undefined);
        socket.resume();
      });
    const connect = (): Promise<net.Socket> =>
      new Promise((resolve) => {
        const socket = net.connect({ host: "127.0.0.1", port }, () => resolve(socket));
      });
    // Slowloris: a header line every 100 ms, never the blank line that ends them.
    const loris = await connect();
    loris.write("GET /api/meta HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    const drip = setInterval(() => loris.writable && loris.write("X-A: b\r\n"), 100);
    // A body announced and never sent.
    const slowBody = await connect();
    slowBody.write("POST /api/reload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{");
    // The event stream: a complete request whose answer stays open.
    const events = await connect();
    events.write("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n");
    const [lorisClosed, bodyClosed, eventsClosed] = await Promise.all([closedWithin(loris, 3000), closedWithin(slowBody, 3000), closedWithin(events, 3000)]);
    clearInterval(drip);
    events.destroy();
    expect(lorisClosed).toBe(true);
    expect(bodyClosed).toBe(true);
    expect(eventsClosed).toBe(false);
  });
});
