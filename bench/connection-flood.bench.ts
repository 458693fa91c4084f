/**
 * `GET /api/meta` on a fresh connection, as a new tab asks it, from the CLI run under a
 * 1,024-descriptor limit (`prlimit --nofile=1024:1024`, a common desktop default): quiet,
 * then while 1,100 idle and 50 slowloris connections are held open and every one the server
 * closes is opened again at once. The peer is the same request on the quiet server. The CLI
 * runs from its sources (tsx) unless WINK_CLI names a built one (dist/server/cli.cjs).
 *
 * Run: node --import tsx bench/connection-flood.bench.ts
 */
import { spawn } from "node:child_process";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { WINK_FIXTURES } from "../fixtures/paths.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const IDLE = 1_100;
const SLOWLORIS = 50;
const REQUESTS = 30;
const TIMEOUT_MS = 15_000;

function get(port: number): Promise<number | null> {
  const started = performance.now();
  return new Promise((resolve) => {
    const request = http.get({ host: "127.0.0.1", port, path: "/api/meta", agent: false, timeout: TIMEOUT_MS }, (response) => {
      response.resume();
      response.on("end", () => resolve(response.statusCode === 200 ? performance.now() - started : null));
    });
    request.on("timeout", () => request.destroy());
    request.on("error", () => resolve(null));
  });
}

async function series(port: number, label: string): Promise<void> {
  const times: number[] = [];
  let failed = 0;
  for (let i = 0; i < REQUESTS; i++) {
    const ms = await get(port);
    if (ms === null) failed++;
    else times.push(ms);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  times.sort((a, b) => a - b);
  const at = (q: number): string => (times.length === 0 ? "-" : (times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0).toFixed(1));
  console.log(`${label}: ${REQUESTS} requests, ${failed} failed or over ${TIMEOUT_MS / 1000} s; median ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${at(1)} ms`);
}

/** Connections that never finish a request, each opened again as soon as the server closes it. */
function flood(port: number): { stop(): void; reopened(): number; open(): number } {
  let stopped = false;
  let reopened = 0;
  const live = new Set<net.Socket>();
  const drip = new Set<net.Socket>();
  const open = (slow: boolean, again: boolean): void => {
    if (stopped) return;
    if (again) reopened++;
    const socket = net.connect({ host: "127.0.0.1", port });
    socket.on("error", () => undefined);
    socket.once("connect", () => {
      live.add(socket);
      if (slow) {
        socket.write(`GET /api/meta HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
        drip.add(socket);
      }
    });
    socket.once("close", () => {
      live.delete(socket);
      drip.delete(socket);
      setImmediate(() => open(slow, true));
    });
  };
  for (let i = 0; i < SLOWLORIS; i++) open(true, false);
  for (let i = 0; i < IDLE; i++) open(false, false);
  const timer = setInterval(() => {
    for (const socket of drip) if (socket.writable) socket.write("X-Slow: 1\r\n");
  }, 1_000);
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
      for (const socket of live) socket.destroy();
    },
    reopened: () => reopened,
    open: () => live.size,
  };
}

async function main(): Promise<void> {
  const cli = process.env.WINK_CLI;
  const args = cli === undefined ? ["--import", "tsx", path.join(ROOT, "server", "cli.ts")] : [cli];
  const child = spawn("prlimit", ["--nofile=1024:1024", process.execPath, ...args, path.join(WINK_FIXTURES, "fszip-pr633"), "--port", "0", "--no-open"], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
  try {
    const port = await new Promise<number>((resolve) => {
      let output = "";
      child.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        const match = /127\.0\.0\.1:(\d+)\//.exec(output);
        if (match?.[1] !== undefined) resolve(Number(match[1]));
      });
    });
    await series(port, "quiet");
    const attack = flood(port);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await series(port, `${IDLE} idle + ${SLOWLORIS} slowloris held`);
    console.log(`attacker: ${attack.open()} connections open at the end, ${attack.reopened()} reopened after the server closed them`);
    attack.stop();
  } finally {
    child.kill("SIGTERM");
  }
}

await main();
