// The server's connection cap, reserve and keep-alive (server/http/connection-limits.ts) over
// real loopback sockets: the CLI's server under a 1,024-descriptor limit (prlimit) against
// 1,100 idle and 50 slowloris connections, and, in this process, event streams that count
// but are never shed, a cap full of busy connections, and Fastify's own server.
import { execFileSync, spawn } from "node:child_process";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildApp } from "./app.js";
import type { WinkApp } from "./app.js";
import { createFirstStage } from "./first-stage.js";
import type { FirstStage } from "./first-stage.js";
import { DEFAULT_KEEP_ALIVE_TIMEOUT_MS, defaultMaxConnections, openFileLimit } from "./http/connection-limits.js";
import { openServedState } from "./library/served-state.js";
import { packageRoot } from "./package-root.js";
import { FIXTURES } from "./server.test-support.js";

const DIR = path.join(FIXTURES, "fszip-pr633");

const children: ChildProcessWithoutNullStreams[] = [];
const sockets: net.Socket[] = [];
const stages: FirstStage[] = [];
const apps: WinkApp[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const child of children.splice(0)) child.kill("SIGKILL");
  for (const app of apps.splice(0)) await app.app.close();
  for (const stage of stages.splice(0)) await stage.close().catch(() => undefined);
});

interface Watched {
  readonly socket: net.Socket;
  /** Resolves when the socket is connected, or closed before that. */
  readonly settled: Promise<void>;
  /** Milliseconds from `watch` to its close, or null while open. */
  closedAfter(): number | null;
  /** What the server sent so far. */
  received(): string;
}

/** A raw connection to `port`, watched from its start; `first` is written once it connects. */
function watch(port: number, first?: string): Watched {
  const started = Date.now();
  const socket = net.connect({ host: "127.0.0.1", port });
  sockets.push(socket);
  let closedAt: number | null = null;
  let text = "";
  socket.on("data", (chunk: Buffer) => (text += chunk.toString()));
  socket.on("error", () => undefined);
  const settled = new Promise<void>((resolve) => {
    socket.once("connect", () => {
      if (first !== undefined) socket.write(first);
      resolve();
    });
    socket.once("close", () => {
      closedAt = Date.now();
      resolve();
    });
  });
  return { socket, settled, closedAfter: () => (closedAt === null ? null : closedAt - started), received: () => text };
}

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/** One GET on a fresh connection, as a new browser tab sends it: its status and how long it took. */
function timedGet(port: number, url: string, timeoutMs: number): Promise<{ status: number | string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const request = http.get({ host: "127.0.0.1", port, path: url, agent: false, timeout: timeoutMs }, (response) => {
      response.resume();
      response.on("end", () => resolve({ status: response.statusCode ?? 0, ms: Date.now() - started }));
    });
    request.on("timeout", () => request.destroy(new Error("timed out")));
    request.on("error", (error) => resolve({ status: error.message, ms: Date.now() - started }));
  });
}

const metaRequest = (port: number) => `GET /api/meta HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`;
const eventsRequest = (port: number) => `GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n\r\n`;

/** The CLI's server in a child process limited to `nofile` descriptors; its port. */
async function limitedServer(nofile: number, limits: Record<string, number>): Promise<number> {
  const script = path.join(packageRoot(), "server", "limited-server.test-support.ts");
  const child = spawn("prlimit", [`--nofile=${nofile}:${nofile}`, process.execPath, "--import", "tsx", script, DIR, JSON.stringify(limits)], { cwd: packageRoot(), env: { ...process.env, NODE_NO_WARNINGS: "1" } });
  children.push(child);
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  if (!(await until(() => /^port \d+$/m.test(output) || child.exitCode !== null, 30_000))) throw new Error(`no port printed: ${output}`);
  const match = /^port (\d+)$/m.exec(output);
  if (match === null) throw new Error(`server failed: ${output}`);
  return Number(match[1]);
}

describe("connection limits", () => {
  it("reads the open-file limit, and leaves room for files under it", () => {
    expect(openFileLimit("Limit  Soft Limit  Hard Limit  Units\nMax open files            1024                 4096                 files\n")).toBe(1024);
    expect(openFileLimit("Max open files            unlimited            unlimited            files\n")).toBeNull();
    expect(defaultMaxConnections(1024)).toBe(768);
    expect(defaultMaxConnections(256)).toBe(128);
    expect(defaultMaxConnections(1_048_576)).toBe(4096);
    // Where it cannot be read: the common desktop default.
    expect(defaultMaxConnections(null)).toBe(768);
    // As a process limited by prlimit reads it (Node raises a soft limit to the hard one at start).
    const program = "import { openFileLimit } from './server/http/connection-limits.ts'; process.stdout.write(String(openFileLimit()));";
    expect(execFileSync("prlimit", ["--nofile=1024:1024", process.execPath, "--import", "tsx", "--input-type=module", "-e", program], { cwd: packageRoot(), encoding: "utf8" })).toBe("1024");
  });

  it("under a 1,024-descriptor limit, 1,100 idle and 50 slowloris connections leave the viewer's page answering at once, and idle keep-alive connections close", async () => {
    const port = await limitedServer(1024, { keepAliveTimeoutMs: 300 });

    // Keep-alive: a complete answer, then nothing more from the client.
    const kept = Array.from({ length: 20 }, () => watch(port, metaRequest(port)));
    expect(await until(() => kept.every((socket) => socket.received().includes("\r\n\r\n{")), 5_000)).toBe(true);
    expect(kept.every((socket) => socket.closedAfter() === null)).toBe(true);
    // 300 ms, and Node's own second of slack after the keep-alive it announces.
    expect(await until(() => kept.every((socket) => socket.closedAfter() !== null), 3_000)).toBe(true);

    // Slowloris first (the longest idle), then a flood of connections that send nothing.
    const loris = Array.from({ length: 50 }, () => watch(port, `GET /api/meta HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`));
    await Promise.all(loris.map((socket) => socket.settled));
    const drip = setInterval(() => {
      for (const { socket } of loris) if (socket.writable) socket.write("X-Slow: 1\r\n");
    }, 200);
    try {
      const idle: Watched[] = [];
      for (let batch = 0; batch < 11; batch++) idle.push(...Array.from({ length: 100 }, () => watch(port)));
      // Connected, or shed; on a server out of descriptors most of them wait in the backlog.
      await Promise.race([Promise.all(idle.map((socket) => socket.settled)), new Promise((resolve) => setTimeout(resolve, 2_000))]);

      const [page, meta] = await Promise.all([timedGet(port, "/", 2_000), timedGet(port, "/api/meta", 2_000)]);
      expect(page.status).toBe(200);
      expect(meta.status).toBe(200);
      expect(meta.ms).toBeLessThan(2_000);
      // What the cap left open: 768 at most; the slowloris ones were the longest idle.
      const shed = [...loris, ...idle].filter((socket) => socket.closedAfter() !== null).length;
      expect(shed).toBeGreaterThanOrEqual(1150 - 768);
      expect(loris.every((socket) => socket.closedAfter() !== null)).toBe(true);
    } finally {
      clearInterval(drip);
    }
  }, 30_000);

  it("counts event streams but never sheds them; with every connection busy, closes a new one at once", async () => {
    const served = await openServedState({ path: DIR });
    const stage = createFirstStage(served.state, { bindHost: "127.0.0.1", maxConnections: 10, reserve: 2 });
    stages.push(stage);
    await new Promise<void>((resolve) => stage.server.listen({ host: "127.0.0.1", port: 0 }, resolve));
    const port = (stage.server.address() as AddressInfo).port;
    const app = await buildApp({ path: DIR, served, server: stage.server, bindHost: "127.0.0.1", watch: false, indexInBackground: false });
    apps.push(app);
    await app.app.ready();
    if (app.handler !== null) stage.handOver(app.handler);

    const streams = Array.from({ length: 8 }, () => watch(port, eventsRequest(port)));
    expect(await until(() => streams.every((stream) => stream.received().includes("event: hello")), 5_000)).toBe(true);
    const idle = Array.from({ length: 20 }, () => watch(port));
    await Promise.all(idle.map((socket) => socket.settled));
    // The streams, and the two newest idle ones (the others were shed to make room for them).
    expect(await until(() => stage.connections.open === 10, 2_000)).toBe(true);
    const meta = await timedGet(port, "/api/meta", 2_000);
    expect(meta.status).toBe(200);
    expect(streams.every((stream) => stream.closedAfter() === null)).toBe(true);
    expect(stage.connections.shed).toBeGreaterThanOrEqual(18);

    // Two more streams fill the reserve; then nothing is idle, and a new connection is closed at once.
    streams.push(watch(port, eventsRequest(port)), watch(port, eventsRequest(port)));
    expect(await until(() => streams.every((stream) => stream.received().includes("event: hello")), 5_000)).toBe(true);
    expect(stage.connections.open).toBe(10);
    const late = watch(port);
    expect(await until(() => late.closedAfter() !== null, 1_000)).toBe(true);
    expect(stage.connections.refused).toBe(1);
    expect(streams.every((stream) => stream.closedAfter() === null)).toBe(true);
    // A stream that ends makes room again.
    streams[0]?.socket.destroy();
    expect(await until(() => stage.connections.open === 9, 2_000)).toBe(true);
    expect((await timedGet(port, "/api/meta", 2_000)).status).toBe(200);
  });

  it("holds a server Fastify creates to the same limits and keep-alive", async () => {
    const app = await buildApp({ path: DIR, bindHost: "127.0.0.1", watch: false, indexInBackground: false, connections: { maxConnections: 10, reserve: 2 } });
    apps.push(app);
    await app.app.listen({ host: "127.0.0.1", port: 0 });
    const port = (app.app.server.address() as AddressInfo).port;
    expect(app.app.server.keepAliveTimeout).toBe(DEFAULT_KEEP_ALIVE_TIMEOUT_MS);
    const idle = Array.from({ length: 20 }, () => watch(port));
    await Promise.all(idle.map((socket) => socket.settled));
    expect(await until(() => idle.filter((socket) => socket.closedAfter() !== null).length >= 12, 2_000)).toBe(true);
    expect((await timedGet(port, "/api/meta", 2_000)).status).toBe(200);
  });
});
