/**
 * The served mode (issue 31, Figures): USERS concurrent simulated users (default 200), each
 * walking one run as the web app asks for it (web/api/http-api.ts) — landing (`/api/runs`),
 * the run (`/api/run`), its timeline (`/api/timeline`), a snapshot (`/api/meta`), a compare
 * (`/api/diff/stat` against another run) — over a store of RUNS session files (default
 * 1,000) in one real radosgw bucket, on two instances of the built CLI behind real nginx
 * (server/ops/reverse-proxy.test-support.ts, the set-up of docs/deploy.md), against the
 * same walk on one instance asked directly on loopback, in the same run. The served instances
 * run with `--auth token` (one token and one session secret for both, from the environment)
 * and every request carries a session cookie from a real token exchange (`/?token=…` through
 * nginx, timed as `sign-in`), as a browser does after opening the printed URL. The exchanges
 * are SIGN_INS (default 20) before the walks, user i carrying cookie i mod SIGN_INS: the
 * guard allows 30 sign-in attempts a minute per client address, and behind the proxy every
 * user's address is nginx's. The direct instance is the local default, without sign-in.
 *
 * The runs are copies of the three real session fixtures (9 KB–0.9 MB) in turn. Reported:
 * errors (any answer but 200), p50/p99 per route, whole-walk p50/p99, RSS per instance after
 * the walk (VmRSS), and the served/direct ratio of the whole-walk p50 and p99.
 *
 * Run: npm run bench -- served-mode   (or: USERS=200 RUNS=1000 node --import tsx bench/served-mode.bench.ts after npm run build)
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { loadavg } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { WINK_FIXTURES } from "../fixtures/paths.js";
import { packageRoot } from "../server/package-root.js";
import { startReverseProxy } from "../server/ops/reverse-proxy.test-support.js";
import { startRadosGateway } from "../shared/remote/test-servers/radosgw.test-support.js";

const USERS = Number(process.env.USERS ?? 200);
const RUNS = Number(process.env.RUNS ?? 1000);
const SIGN_INS = Math.min(USERS, Number(process.env.SIGN_INS ?? 20));
const BUCKET = "served-mode";
// CLI=…/cli.cjs measures another build (a copy of the tree before a change) on the same load.
const CLI = process.env.CLI ?? path.join(packageRoot(), "dist", "server", "cli.cjs");
const SOURCES = [
  path.join(WINK_FIXTURES, "acc0d4c3-321a-5d97-a3a9-505f3aba4219.jsonl"),
  path.join(WINK_FIXTURES, "db5c4ea2-559a-52c5-8313-741e72978682.jsonl"),
  path.join(packageRoot(), "examples", "snapshots", "5f0c2b8e-3d41-4a9b-8c7e-1f2a3b4c5d6e.jsonl"),
];
const runName = (index: number): string => `run-${String(index).padStart(5, "0")}.jsonl`;

interface Instance {
  readonly child: ChildProcess;
  readonly url: string;
}

async function startInstance(env: NodeJS.ProcessEnv, endpoint: string, extra: readonly string[] = []): Promise<Instance> {
  const child = spawn(process.execPath, [CLI, `s3://${BUCKET}/`, "--endpoint-url", endpoint, "--host", "127.0.0.1", "--port", "0", ...extra], { env: { ...env, NODE_NO_WARNINGS: "1" }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", () => undefined);
  const deadline = Date.now() + 120_000;
  for (;;) {
    const match = /^ {2}(http:\/\/127\.0\.0\.1:\d+\/)/m.exec(output);
    if (match?.[1] !== undefined) {
      // Listening is not ready: wait for the full app (the first stage answers only /api/meta).
      for (;;) {
        const response = await fetch(`${match[1]}readyz`).catch(() => null);
        if (response?.status === 200) return { child, url: match[1] };
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`instance did not start: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function rssMiB(child: ChildProcess): number {
  const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

const ROUTES = ["runs", "run", "timeline", "meta", "compare"] as const;
type Route = (typeof ROUTES)[number];

function walk(user: number): [Route, string][] {
  const run = runName((user * 7919) % RUNS);
  const other = runName((user * 7919 + 1) % RUNS);
  return [
    ["runs", "api/runs?limit=50"],
    ["run", `api/run?file=${run}`],
    ["timeline", `api/timeline?file=${run}&line=1`],
    ["meta", `api/meta?file=${run}&line=1`],
    ["compare", `api/diff/stat?base_file=${run}&base_line=1&target_file=${other}&target_line=1`],
  ];
}

interface WalkFigures {
  readonly errors: number;
  readonly byRoute: Map<Route, number[]>;
  readonly walks: number[];
  readonly wallMs: number;
}

/**
 * The token exchanged for the session cookie, as the printed URL does it in a browser: a 302
 * without the token, with `Set-Cookie`. Returns the `Cookie` header to send after it.
 */
async function signIn(base: string, token: string): Promise<string> {
  const response = await fetch(`${base}?token=${token}`, { redirect: "manual", headers: { accept: "text/html" } });
  await response.arrayBuffer();
  const cookie = response.headers.getSetCookie()[0]?.split(";")[0];
  if (response.status !== 302 || cookie === undefined) throw new Error(`sign-in answered ${response.status} without a cookie`);
  return cookie;
}

/** Every user's walk at once; with `cookies`, user i carries cookie i mod their number. */
async function walkAll(base: string, cookies: readonly string[] = []): Promise<WalkFigures> {
  const byRoute = new Map<Route, number[]>(ROUTES.map((route) => [route, []]));
  const walks: number[] = [];
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: USERS }, async (_, user) => {
      const begun = performance.now();
      const cookie = cookies[user % cookies.length];
      const headers: Record<string, string> = cookie === undefined ? {} : { cookie };
      for (const [route, url] of walk(user)) {
        const t0 = performance.now();
        try {
          const response = await fetch(`${base}${url}`, { headers });
          await response.arrayBuffer();
          if (response.status !== 200) errors++;
        } catch {
          errors++;
        }
        byRoute.get(route)?.push(performance.now() - t0);
      }
      walks.push(performance.now() - begun);
    }),
  );
  return { errors, byRoute, walks, wallMs: performance.now() - started };
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))] ?? 0;
}

function report(name: string, figures: WalkFigures): void {
  const cells = ROUTES.map((route) => {
    const times = figures.byRoute.get(route) ?? [];
    return `${route} ${percentile(times, 0.5).toFixed(0)}/${percentile(times, 0.99).toFixed(0)}`;
  });
  console.log(`${name}: errors ${figures.errors}; p50/p99 ms: ${cells.join(", ")}; walk ${percentile(figures.walks, 0.5).toFixed(0)}/${percentile(figures.walks, 0.99).toFixed(0)}; wall ${figures.wallMs.toFixed(0)} ms`);
}

async function main(): Promise<void> {
  const gateway = await startRadosGateway();
  const instances: Instance[] = [];
  let proxy: Awaited<ReturnType<typeof startReverseProxy>> | null = null;
  try {
    await gateway.createBucket(BUCKET);
    const bodies = await Promise.all(SOURCES.map((file) => readFile(file)));
    const seeded = performance.now();
    for (let next = 0; next < RUNS; ) {
      const batch = Array.from({ length: Math.min(16, RUNS - next) }, (_, offset) => next + offset);
      await Promise.all(batch.map((index) => gateway.put(BUCKET, runName(index), bodies[index % bodies.length] as Buffer)));
      next += batch.length;
    }
    console.log(`seeded ${RUNS} runs into radosgw in ${((performance.now() - seeded) / 1000).toFixed(1)} s; ${USERS} users; load ${loadavg()[0]?.toFixed(2)}`);
    const env = { ...process.env, AWS_ACCESS_KEY_ID: gateway.owner.accessKeyId, AWS_SECRET_ACCESS_KEY: gateway.owner.secretAccessKey, AWS_EC2_METADATA_DISABLED: "true", AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" };

    // Direct: one instance, asked on loopback. A warm-up walk first for each set-up (indexes read from the store once).
    const direct = await startInstance(env, gateway.endpoint);
    instances.push(direct);
    await walkAll(direct.url);
    const directFigures = await walkAll(direct.url);
    report("direct (1 instance, loopback)", directFigures);
    console.log(`  RSS ${rssMiB(direct.child).toFixed(0)} MiB`);
    direct.child.kill("SIGTERM");

    // Served: both instances take the same token and session secret, so either accepts the other's cookie.
    const token = randomBytes(24).toString("hex");
    const servedEnv = { ...env, WINK_DEBUG_TOKEN: token, WINK_SESSION_SECRET: randomBytes(32).toString("hex") };
    const served = [await startInstance(servedEnv, gateway.endpoint, ["--auth", "token"]), await startInstance(servedEnv, gateway.endpoint, ["--auth", "token"])];
    instances.push(...served);
    proxy = await startReverseProxy(served.map(({ url }) => Number(new URL(url).port)));
    const proxyUrl = proxy.url;
    const signIns: number[] = [];
    const cookies = await Promise.all(
      Array.from({ length: SIGN_INS }, async () => {
        const t0 = performance.now();
        const cookie = await signIn(proxyUrl, token);
        signIns.push(performance.now() - t0);
        return cookie;
      }),
    );
    console.log(`${SIGN_INS} sign-ins (token for cookie, through nginx): p50/p99 ${percentile(signIns, 0.5).toFixed(0)}/${percentile(signIns, 0.99).toFixed(0)} ms`);
    await walkAll(proxyUrl, cookies);
    const servedFigures = await walkAll(proxyUrl, cookies);
    report("served (2 instances behind nginx)", servedFigures);
    console.log(`  RSS ${served.map(({ child }) => `${rssMiB(child).toFixed(0)} MiB`).join(", ")}`);
    const ratio = (p: number) => percentile(servedFigures.walks, p) / percentile(directFigures.walks, p);
    console.log(`overhead (served / direct, whole walk): p50 ${ratio(0.5).toFixed(2)}x, p99 ${ratio(0.99).toFixed(2)}x`);
  } finally {
    for (const { child } of instances) if (child.exitCode === null) child.kill("SIGKILL");
    await proxy?.stop();
    await gateway.stop();
  }
}

await main();
