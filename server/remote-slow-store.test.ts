/**
 * Issue 29, item 8, for real: the CLI serving an HTTP store (a plain node HTTP server on
 * loopback, with nginx's JSON listing) where nine objects' requests are accepted and never
 * answered and one is sent a byte a second. They used to hold every socket of the store's
 * agent (a good file's read then timed out queued behind them), the drip never timed out (the
 * budget only ran between chunks), the background indexing waited behind them one object at
 * a time, and `/api/runs` waited on each of them in turn. Now every read has a deadline, the
 * other runs are served, and the run list answers at once with those runs marked `slow`.
 */
import { utimes, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type NginxServer, startNginx } from "../shared/remote/test-servers/nginx.test-support.js";
import { startCli, stopClis, waitForUrl } from "./cli.test-support.js";
import { cleanUp, snapshotLine, tempDir } from "./server.test-support.js";

const HUNG = Array.from({ length: 9 }, (_, index) => `hung-${index + 1}.jsonl`);
const STORE_TIMEOUT_S = 3;
/** The run list waits 1.5 s at most on its runs; the rest is margin for a busy machine. */
const LIST_MS = 4_000;

interface StoredObject {
  readonly bytes: Buffer;
  readonly mtimeMs: number;
  readonly behaviour: "normal" | "hung" | "drip";
}

const now = Date.now();
const objects = new Map<string, StoredObject>();
const line = (sessionId: string): Buffer => Buffer.from(`${snapshotLine({ sessionId })}\n`);
objects.set("c.jsonl", { bytes: line("c"), mtimeMs: now - 1_000, behaviour: "normal" });
HUNG.forEach((name, index) => objects.set(name, { bytes: line(name), mtimeMs: now - 2_000 - index * 1_000, behaviour: "hung" }));
objects.set("drip.jsonl", { bytes: line("drip"), mtimeMs: now - 20_000, behaviour: "drip" });
objects.set("b.jsonl", { bytes: line("b"), mtimeMs: now - 30_000, behaviour: "normal" });
objects.set("a.jsonl", { bytes: line("a"), mtimeMs: now - 40_000, behaviour: "normal" });

let store: Server;
let storeUrl: string;
/** Requests for hung objects accepted so far (answered never). */
let hungRequests = 0;
const held = new Set<ServerResponse>();

/** `bytes=a-b`, `bytes=a-` or `bytes=-n` of a `size`-byte object, clamped; null when absent or unsatisfiable. */
function rangeOf(header: string | undefined, size: number): { start: number; end: number } | null {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header ?? "");
  if (match === null) return null;
  const [, from = "", to = ""] = match;
  if (from === "") return { start: Math.max(0, size - Number(to)), end: size - 1 };
  const start = Number(from);
  return start >= size ? null : { start, end: Math.min(size - 1, to === "" ? size - 1 : Number(to)) };
}

function answer(request: IncomingMessage, response: ServerResponse): void {
  const name = decodeURIComponent((request.url ?? "/").slice(1));
  if (name === "") {
    const listing = [...objects].map(([key, object]) => ({ name: key, type: "file", mtime: new Date(object.mtimeMs).toUTCString(), size: object.bytes.length }));
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(listing));
    return;
  }
  const object = objects.get(name);
  if (object === undefined) {
    response.writeHead(404).end();
    return;
  }
  if (object.behaviour === "hung") {
    hungRequests++;
    held.add(response);
    return;
  }
  const range = rangeOf(request.headers.range, object.bytes.length);
  const headers = { etag: `"${name}-1"`, "last-modified": new Date(object.mtimeMs).toUTCString(), "accept-ranges": "bytes" };
  if (request.method === "HEAD") {
    response.writeHead(200, { ...headers, "content-length": object.bytes.length }).end();
    return;
  }
  const { start, end } = range ?? { start: 0, end: object.bytes.length - 1 };
  const body = object.bytes.subarray(start, end + 1);
  response.writeHead(range === null ? 200 : 206, {
    ...headers,
    "content-length": body.length,
    ...(range === null ? {} : { "content-range": `bytes ${start}-${end}/${object.bytes.length}` }),
  });
  if (object.behaviour === "normal") {
    response.end(body);
    return;
  }
  // A byte a second: every chunk comes well within the budget between chunks.
  held.add(response);
  let sent = 0;
  const timer = setInterval(() => {
    if (response.destroyed || sent >= body.length) {
      clearInterval(timer);
      response.end();
      return;
    }
    response.write(body.subarray(sent, sent + 1));
    sent++;
  }, 1_000);
  response.on("close", () => clearInterval(timer));
}

beforeAll(async () => {
  store = createServer(answer);
  await new Promise<void>((resolve) => store.listen(0, "127.0.0.1", resolve));
  storeUrl = `http://127.0.0.1:${(store.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  for (const response of held) response.destroy();
  store.closeAllConnections();
  await new Promise((resolve) => store.close(resolve));
});

afterEach(() => stopClis());

interface RunList {
  runs: { source: { path: string }; state: string; problem: string | null; root_session_id: string | null }[];
}

/** Waits for the full app behind the CLI's first stage (loaded lazily: slow on a busy machine), asking the store nothing. */
async function warmedUp(url: string): Promise<string> {
  const answer = await fetch(`${url}api/run?file=none.jsonl`);
  expect(answer.status).toBe(404);
  return url;
}

async function timed(url: string): Promise<{ status: number; body: unknown; ms: number }> {
  const started = Date.now();
  const response = await fetch(url);
  const body = (await response.json()) as unknown;
  return { status: response.status, body, ms: Date.now() - started };
}

describe("objects whose store never answers, or drips a byte a second (issue 29, item 8)", () => {
  it("fail their own views within the deadline; the other runs are served and /api/runs answers at once, marking them slow", async () => {
    const cli = startCli([storeUrl, "--port", "0", "--store-timeout", String(STORE_TIMEOUT_S)]);
    const url = await warmedUp(await waitForUrl(() => cli.output().replaceAll(storeUrl, ""), 60_000));

    // Views of every hung object and of the drip, at once: more than the agent's sockets were.
    const views = [...HUNG, "drip.jsonl"].map((name) => timed(`${url}api/run?file=${encodeURIComponent(name)}`));
    for (const deadline = Date.now() + 10_000; hungRequests < HUNG.length && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(hungRequests).toBe(HUNG.length);

    // A good file is read meanwhile, not queued behind them.
    const good = await timed(`${url}api/run?file=a.jsonl`);
    expect(good.status).toBe(200);
    expect((good.body as { root_session_id: string }).root_session_id).toBe("a");

    // Each view ends with a store error naming its object, within the budget (plus its length at the slowest rate).
    const answered = await Promise.all(views);
    for (const [position, view] of answered.entries()) {
      const name = position < HUNG.length ? HUNG[position] : "drip.jsonl";
      expect(view.status).toBe(504);
      expect(view.body).toMatchObject({ code: "E_SOURCE_TIMEOUT" });
      expect((view.body as { detail: string }).detail).toContain(`${storeUrl}${name}`);
      expect(view.ms).toBeLessThan((STORE_TIMEOUT_S + 8) * 1000);
    }
    expect((answered.at(-1)?.body as { detail: string }).detail).toMatch(/sent only \d+ of \d+ bytes in \d+ ms \(slower than 16384 B\/s\)/);

    // The run list answers within its deadline: the objects being read again are `slow`, the others fine.
    const list = await timed(`${url}api/runs`);
    expect(list.status).toBe(200);
    expect(list.ms).toBeLessThan(LIST_MS);
    const states = new Map((list.body as RunList).runs.map((run) => [run.source.path, run]));
    expect(states.size).toBe(objects.size);
    for (const name of HUNG) {
      expect(states.get(name)?.state).toBe("slow");
      expect(states.get(name)?.problem).toBe(`No answer from the store for ${storeUrl}${name} within ${STORE_TIMEOUT_S * 1000} ms (opening the run tries again)`);
    }
    expect(states.get("drip.jsonl")?.state).toBe("slow");
    expect(states.get("drip.jsonl")?.problem).toMatch(/sent only \d+ of \d+ bytes in \d+ ms \(slower than 16384 B\/s\) \(opening the run tries again\)$/);
    expect(states.get("a.jsonl")?.state).toBe("ready");
    expect(states.get("c.jsonl")?.state).toBe("ready");

    // The rest fills in on later requests, each answered within the deadline.
    let last: RunList = list.body as RunList;
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 250))) {
      const again = await timed(`${url}api/runs`);
      expect(again.ms).toBeLessThan(LIST_MS);
      last = again.body as RunList;
      if (last.runs.find((run) => run.source.path === "b.jsonl")?.state === "ready") break;
    }
    expect(last.runs.find((run) => run.source.path === "b.jsonl")).toMatchObject({ state: "ready", root_session_id: "b" });
  }, 90_000);

  it("do not hold the background indexing of the runs listed after them", async () => {
    const cli = startCli([storeUrl, "--port", "0", "--store-timeout", String(STORE_TIMEOUT_S)]);
    const url = await warmedUp(await waitForUrl(() => cli.output().replaceAll(storeUrl, ""), 60_000));
    // The first list queues every run newest first: the ten slow objects before b and a.
    // One at a time, b and a waited ~30 s (ten budgets) behind them; a few at a time, two or three budgets.
    const started = Date.now();
    const seen = new Map<string, Set<string>>();
    let last: RunList | null = null;
    let readyAfter: number | null = null;
    let waitingSeen: string | null = null;
    for (; Date.now() - started < 40_000; await new Promise((resolve) => setTimeout(resolve, 250))) {
      const list = await timed(`${url}api/runs`);
      expect(list.status).toBe(200);
      expect(list.ms).toBeLessThan(LIST_MS);
      last = list.body as RunList;
      for (const run of last.runs) seen.set(run.source.path, (seen.get(run.source.path) ?? new Set()).add(run.state));
      const state = (name: string): string | undefined => last?.runs.find((run) => run.source.path === name)?.state;
      if (readyAfter === null && state("a.jsonl") === "ready" && state("b.jsonl") === "ready") readyAfter = Date.now() - started;
      const drip = last.runs.find((run) => run.source.path === "drip.jsonl");
      if (drip?.problem?.startsWith("The store has not finished") === true) waitingSeen = drip.problem;
      if (readyAfter !== null && drip?.problem?.includes("slower than") === true) break;
    }
    expect(readyAfter).not.toBeNull();
    expect(readyAfter).toBeLessThan(STORE_TIMEOUT_S * 1000 * 5);
    expect(last?.runs.find((run) => run.source.path === "a.jsonl")).toMatchObject({ state: "ready", root_session_id: "a" });
    expect(last?.runs.find((run) => run.source.path === "b.jsonl")).toMatchObject({ state: "ready", root_session_id: "b" });
    // The drip was listed as pending, as slow once read for over 2 s, and stays slow with the error it ended with.
    expect([...(seen.get("drip.jsonl") ?? [])]).toEqual(["pending", "slow"]);
    expect(waitingSeen).toMatch(/^The store has not finished sending drip\.jsonl after \d+\.\d s; it is listed when it arrives$/);
    expect(last?.runs.find((run) => run.source.path === "drip.jsonl")?.problem).toMatch(/slower than 16384 B\/s/);
  }, 90_000);
});

describe("a real nginx sending one object at a byte a second without ranges (limit_rate 1, max_ranges 0)", () => {
  let nginx: NginxServer;

  beforeAll(async () => {
    const served = await tempDir("wink-dripping-");
    // The dripping object is neither the newest (opened at start) nor the oldest.
    for (const [name, ageS] of [["c.jsonl", 10], ["slow.jsonl", 20], ["b.jsonl", 30], ["a.jsonl", 40]] as const) {
      const file = path.join(served, name);
      await writeFile(file, `${snapshotLine({ sessionId: name })}\n`);
      const at = new Date(Date.now() - ageS * 1000);
      await utimes(file, at, at);
    }
    nginx = await startNginx(served);
  }, 60_000);

  afterAll(async () => {
    await nginx?.stop();
    await cleanUp();
  });

  it("fails that run's view within the deadline and lists it as slow at once, the others ready", async () => {
    const root = `${nginx.url}dripping/`;
    const cli = startCli([root, "--port", "0", "--store-timeout", String(STORE_TIMEOUT_S)]);
    const url = await warmedUp(await waitForUrl(() => cli.output().replaceAll(nginx.url, ""), 60_000));
    const view = await timed(`${url}api/run?file=slow.jsonl`);
    expect(view.status).toBe(504);
    expect(view.body).toMatchObject({ code: "E_SOURCE_TIMEOUT" });
    // nginx holds even the headers back at this rate: the budget until the answer ends it.
    expect((view.body as { detail: string }).detail).toBe(`No answer from the store for ${root}slow.jsonl within ${STORE_TIMEOUT_S * 1000} ms`);
    expect(view.ms).toBeLessThan((STORE_TIMEOUT_S + 8) * 1000);

    let last: RunList | null = null;
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 250))) {
      const list = await timed(`${url}api/runs`);
      expect(list.status).toBe(200);
      expect(list.ms).toBeLessThan(LIST_MS);
      last = list.body as RunList;
      if (last.runs.every((run) => run.state === "ready" || run.source.path === "slow.jsonl")) break;
    }
    const states = new Map(last?.runs.map((run) => [run.source.path, run]));
    expect(states.get("slow.jsonl")?.state).toBe("slow");
    expect(states.get("slow.jsonl")?.problem).toBe(`No answer from the store for ${root}slow.jsonl within ${STORE_TIMEOUT_S * 1000} ms (opening the run tries again)`);
    for (const name of ["a.jsonl", "b.jsonl", "c.jsonl"]) expect(states.get(name)).toMatchObject({ state: "ready", root_session_id: name });
  }, 90_000);
});
