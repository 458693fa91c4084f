// Issue 31, item 6: two instances on the same real radosgw bucket behind real nginx share
// nothing but the store, so a deep link is answered the same by either, and when one is
// killed mid-walk the user's next requests go to the other and succeed.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RadosGateway, startRadosGateway } from "../../shared/remote/test-servers/radosgw.test-support.js";
import { type RunningCli, startCli, stopClis } from "../cli.test-support.js";
import { FIXTURES } from "../server.test-support.js";
import { type ReverseProxy, startReverseProxy } from "./reverse-proxy.test-support.js";

const BUCKET = "scale-out";
const RUNS = ["acc0d4c3-321a-5d97-a3a9-505f3aba4219.jsonl", "db5c4ea2-559a-52c5-8313-741e72978682.jsonl"];
let gateway: RadosGateway;
let proxy: ReverseProxy | null = null;

beforeAll(async () => {
  gateway = await startRadosGateway();
  await gateway.createBucket(BUCKET);
  for (const run of RUNS) await gateway.put(BUCKET, `ci/${run}`, await readFile(path.join(FIXTURES, run)));
}, 180_000);

afterAll(async () => {
  stopClis();
  await proxy?.stop();
  await gateway?.stop();
});

/** One instance on loopback, any free port; resolves with its base URL (the indented line, after the store's). */
async function instance(): Promise<{ cli: RunningCli; url: string }> {
  const env = { ...process.env, AWS_ACCESS_KEY_ID: gateway.owner.accessKeyId, AWS_SECRET_ACCESS_KEY: gateway.owner.secretAccessKey, AWS_EC2_METADATA_DISABLED: "true" };
  const cli = startCli([`s3://${BUCKET}/ci/`, "--endpoint-url", gateway.endpoint, "--host", "127.0.0.1", "--port", "0"], { env });
  const deadline = Date.now() + 60_000;
  for (;;) {
    const match = /^ {2}(http:\/\/127\.0\.0\.1:\d+\/)/m.exec(cli.output());
    if (match?.[1] !== undefined) return { cli, url: match[1] };
    if (Date.now() > deadline || cli.child.exitCode !== null) throw new Error(`instance did not start: ${cli.output()} ${cli.errors()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A user's walk through one run, as the web app asks for it (web/api/http-api.ts). */
const walk = (run: string): string[] => [
  "api/runs?limit=50",
  `api/run?file=${run}`,
  `api/meta?file=${run}&line=1`,
  `api/timeline?file=${run}&line=1`,
  `api/filesystem/browse?file=${run}&line=1`,
  `api/diff/stat?base_file=${RUNS[0]}&base_line=1&target_file=${RUNS[1]}&target_line=1`,
];

async function answer(url: string): Promise<{ status: number; body: string }> {
  const response = await fetch(url);
  return { status: response.status, body: await response.text() };
}

/**
 * Waits until the instance has indexed the runs the list shows: a remote store's runs are
 * indexed in the background once listed, so two fresh instances answer alike only after.
 */
async function indexed(base: string): Promise<void> {
  const until = Date.now() + 60_000;
  for (;;) {
    const runs = JSON.parse((await answer(`${base}api/runs?limit=50`)).body) as { indexing: boolean; runs: { state: string }[] };
    if (!runs.indexing && runs.runs.every((run) => run.state !== "pending")) return;
    if (Date.now() > until) throw new Error(`${base} still indexes its runs after 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("two instances behind nginx on one radosgw bucket", () => {
  it("answer a deep link the same way, and carry on through the other when one is killed mid-walk", async () => {
    const [first, second] = await Promise.all([instance(), instance()]);
    const ports = [first, second].map(({ url }) => Number(new URL(url).port));
    proxy = await startReverseProxy(ports);
    await Promise.all([indexed(first.url), indexed(second.url)]);

    // Each instance directly, then through the balancer (by run: the one the link names).
    for (const route of walk(RUNS[0] as string)) {
      const [a, b] = await Promise.all([answer(`${first.url}${route}`), answer(`${second.url}${route}`)]);
      expect(a.status, route).toBe(200);
      expect(b, route).toEqual(a);
      for (let turn = 0; turn < 4; turn++) expect(await answer(`${proxy.url}${route}`), route).toEqual(a);
    }

    // Mid-walk: half the walk through nginx, the first instance killed, the rest of it.
    const steps = walk(RUNS[1] as string);
    const expected = await Promise.all(steps.map((route) => answer(`${second.url}${route}`)));
    for (const [index, route] of steps.slice(0, 3).entries()) expect(await answer(`${proxy.url}${route}`)).toEqual(expected[index]);
    first.cli.child.kill("SIGKILL");
    await first.cli.exit;
    for (let round = 0; round < 3; round++) {
      for (const [index, route] of steps.entries()) expect(await answer(`${proxy.url}${route}`), `${route} after the kill`).toEqual(expected[index]);
    }
    expect((await fetch(`${proxy.url}readyz`)).status).toBe(200);
  }, 240_000);
});
