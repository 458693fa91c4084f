// `wink-debug failures` and `wink-debug index` on remote stores (issue 30 items 1, 5 and 6):
// the real CLI on an eval in a real Ceph radosgw bucket and behind a real nginx. The groups
// are the local folder's; the run index is kept only in --cache-dir; an index.parquet written
// from the bucket and uploaded to its root is what the viewer then takes; a store that
// cannot be read is exit 4 with the viewer's hint.
import { mkdir, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EvalSummaryView, FailureReportView } from "../shared/viewer/index.js";
import { type RadosGateway, startRadosGateway } from "../shared/remote/test-servers/radosgw.test-support.js";
import { startNginx } from "../shared/remote/test-servers/nginx.test-support.js";
import { startCli, stopClis } from "./cli.test-support.js";
import { MIXED_EVAL_FAILED_RUN, garbleRun, writeMixedEval } from "./failures.test-support.js";
import { INDEX_FILE } from "./library/index-seed.js";
import { folderObjects } from "./remote-parity.test-support.js";
import { cleanUp, tempDir, testApp } from "./server.test-support.js";

/** Tests that start the CLI several times: each start transpiles the sources (seconds on a loaded 2-core machine). */
const SEVERAL_STARTS_MS = 180_000;

let gateway: RadosGateway;
let scratch: string;
/** The eval as a local folder. */
let folder: string;
let buckets = 0;

beforeAll(async () => {
  scratch = await tempDir("wink-remote-commands-");
  folder = path.join(scratch, "eval");
  await writeMixedEval(folder);
  gateway = await startRadosGateway();
}, 180_000);

afterAll(async () => {
  stopClis();
  await cleanUp();
  await gateway?.stop();
});

/** The environment of a CLI that reaches the gateway as `user`: keys in the environment, no shared files, no instance metadata, its own user cache. */
function cliEnvironment(user = gateway.owner): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith("AWS_")) delete env[name];
  return {
    ...env,
    AWS_ACCESS_KEY_ID: user.accessKeyId,
    AWS_SECRET_ACCESS_KEY: user.secretAccessKey,
    AWS_CONFIG_FILE: path.join(scratch, "no-config"),
    AWS_SHARED_CREDENTIALS_FILE: path.join(scratch, "no-credentials"),
    AWS_EC2_METADATA_DISABLED: "true",
    XDG_CACHE_HOME: path.join(scratch, "user-cache"),
  };
}

async function run(args: string[], env: NodeJS.ProcessEnv = cliEnvironment()): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const cli = startCli(args, { env });
  const code = await cli.exit;
  return { code, stdout: cli.output(), stderr: cli.errors() };
}

function report(result: { code: number | null; stdout: string; stderr: string }): FailureReportView {
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as FailureReportView;
}

/** A new bucket holding the eval at its root, as its s3:// URL. */
async function evalBucket(): Promise<{ name: string; url: string }> {
  const name = `eval-${++buckets}`;
  await gateway.createBucket(name);
  for (const [key, bytes] of await folderObjects(folder)) await gateway.put(name, key, bytes);
  return { name, url: `s3://${name}/` };
}

/** The viewer's eval of `url` (on the gateway), once complete, and what it noted. */
async function viewerEval(url: string): Promise<{ summary: EvalSummaryView; notes: string[] }> {
  const notes: string[] = [];
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
  process.env.AWS_ACCESS_KEY_ID = gateway.owner.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = gateway.owner.secretAccessKey;
  try {
    const built = await testApp({ path: url, recursive: true, remote: { s3: { endpoint: gateway.endpoint } }, onNote: (line) => notes.push(line) });
    for (;;) {
      const answer = await built.app.inject({ method: "GET", url: "/api/failures", headers: { host: "127.0.0.1:8000" } });
      expect(answer.statusCode).toBe(200);
      const summary = answer.json<EvalSummaryView>();
      if (summary.index.complete) return { summary, notes };
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
    else process.env.AWS_ACCESS_KEY_ID = saved.id;
    if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
    else process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
  }
}

describe("wink-debug failures and index on an S3 bucket (radosgw)", () => {
  it("groups the bucket's runs as the local folder's, keeping the run index only in --cache-dir", async () => {
    const local = report(await run(["failures", folder, "-r", "--json", "--no-cache"]));
    expect(local.runs).toBe(6);
    const { url } = await evalBucket();
    const cacheDir = path.join(scratch, "s3-cache");
    const first = await run(["failures", url, "-r", "--json", "--endpoint-url", gateway.endpoint, "--path-style", "--cache-dir", cacheDir]);
    expect(report(first)).toEqual(local);
    expect(first.stderr).toContain(`Listing ${url}…`);
    expect(first.stderr).toContain(`Reading 7 runs of ${url}…`);
    expect(first.stderr).toMatch(/Read 7 runs in [\d.]+ s \(1 did not load\)/);
    // Kept in --cache-dir, nowhere else: the user's cache directory is for local folders.
    expect((await readdir(cacheDir)).filter((name) => name.startsWith("run-index-"))).toHaveLength(1);
    expect(await readdir(path.join(scratch, "user-cache")).catch(() => [])).toEqual([]);

    // A second command with the same --cache-dir reads only the run that did not load (not kept: what stopped it may pass).
    const second = await run(["failures", url, "-r", "--endpoint-url", gateway.endpoint, "--cache-dir", cacheDir]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(`Reading 1 run of ${url} (6 more from the cache)…`);
    expect(second.stdout.split("\n")[0]).toBe(`6 runs: ${local.failed_runs} failed, ${6 - local.failed_runs - 1} passed, 1 did not load; ${local.groups.length} failure groups`);

    // Without --cache-dir nothing is kept anywhere, and --no-cache contradicts it.
    const contradiction = await run(["failures", url, "-r", "--endpoint-url", gateway.endpoint, "--no-cache", "--cache-dir", cacheDir]);
    expect(contradiction.code).toBe(2);
    expect(contradiction.stderr).toBe("wink-debug: error: --no-cache and --cache-dir contradict each other\n");
  }, SEVERAL_STARTS_MS);

  it("writes an index.parquet from the bucket whose rows the viewer and failures take once it is uploaded to the bucket's root", async () => {
    const { name, url } = await evalBucket();
    const { summary: without, notes: none } = await viewerEval(url);
    expect(none).toEqual([]);
    expect(without.outcomes.runs).toBe(6);
    const out = path.join(scratch, `${name}-out`);
    await mkdir(out);

    // Written from the local folder, the rows carry its file times, which no uploaded object has: none is taken.
    const fromFolder = await run(["index", folder, "-r", "--no-cache", "-o", path.join(out, "from-folder.parquet")]);
    expect(fromFolder.code, fromFolder.stderr).toBe(0);
    await gateway.put(name, INDEX_FILE, await readFile(path.join(out, "from-folder.parquet")));
    const unmatched = await viewerEval(url);
    expect(unmatched.summary).toEqual(without);
    expect(unmatched.notes).toEqual([`${INDEX_FILE}: 0 of 7 runs taken from it, 7 read (new or changed since it was written: 7 changed)`]);

    // Written from the bucket, the rows carry its listing's times and sizes: every run is taken.
    const fromBucket = await run(["index", url, "-r", "--endpoint-url", gateway.endpoint, "-o", path.join(out, INDEX_FILE)]);
    expect(fromBucket.code, fromBucket.stderr).toBe(0);
    expect(fromBucket.stdout).toMatch(new RegExp(`^Wrote 6 runs and \\d+ failures to ${path.join(out, INDEX_FILE).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\n$`));
    expect(fromBucket.stderr).toContain(`Reading 7 runs of ${url}…`);
    await gateway.put(name, INDEX_FILE, await readFile(path.join(out, INDEX_FILE)));
    const taken = await viewerEval(url);
    expect(taken.summary).toEqual(without);
    expect(taken.notes).toEqual([`${INDEX_FILE}: 7 of 7 runs taken from it`]);
    const failures = await run(["failures", url, "-r", "--json", "--no-cache", "--endpoint-url", gateway.endpoint]);
    expect(report(failures)).toEqual(report(await run(["failures", folder, "-r", "--json", "--no-cache"])));
    expect(failures.stderr).toContain(`${INDEX_FILE}: 7 of 7 runs taken from it`);
  }, SEVERAL_STARTS_MS);

  it("says why a store cannot be read with exit 4 and the viewer's hint, and refuses S3 options for other targets", async () => {
    const { url } = await evalBucket();
    const missing = await run(["failures", "s3://no-such-bucket/", "--endpoint-url", gateway.endpoint]);
    expect(missing.code, missing.stderr).toBe(4);
    expect(missing.stderr).toMatch(/^Listing s3:\/\/no-such-bucket\/…\n/);
    expect(missing.stderr).toMatch(/\nwink-debug: error: No such bucket: no-such-bucket .*\[E_SOURCE_NOT_FOUND\]\n {2}Check the bucket and prefix \(or the URL\); with --endpoint-url, check the endpoint too\.\n$/);
    const out = path.join(scratch, "forbidden.parquet");
    const forbidden = await run(["index", url, "-r", "--endpoint-url", gateway.endpoint, "-o", out], cliEnvironment(gateway.stranger));
    expect(forbidden.code, forbidden.stderr).toBe(4);
    expect(forbidden.stderr).toMatch(/\[E_SOURCE_FORBIDDEN\]\n {2}These credentials may not read that bucket or folder\.\n$/);
    expect(forbidden.stderr).not.toContain(gateway.stranger.secretAccessKey);
    expect(forbidden.stdout).toBe("");
    await expect(readFile(out)).rejects.toThrow(/ENOENT/);
    const wrongTarget = await run(["index", folder, "-r", "--region", "eu-west-1", "-o", out]);
    expect(wrongTarget.code).toBe(2);
    expect(wrongTarget.stderr).toBe(`wink-debug: error: --region is for s3:// targets, not ${folder}\n`);
  }, SEVERAL_STARTS_MS);
});

describe("wink-debug failures and index on an HTTP folder (nginx)", () => {
  it("groups the folder's runs as the local folder's, and writes an index the viewer takes from the folder's root", async () => {
    const dir = path.join(scratch, "http-eval");
    const files = await writeMixedEval(dir);
    const nginx = await startNginx(dir);
    try {
      const env = cliEnvironment();
      const local = report(await run(["failures", dir, "-r", "--json", "--no-cache"], env));
      const remote = await run(["failures", nginx.url, "-r", "--json", "--no-cache"], env);
      expect(report(remote)).toEqual(local);
      expect(remote.stderr).toContain(`Reading 7 runs of ${nginx.url}…`);
      const written = await run(["index", nginx.url, "-r", "--no-cache", "-o", path.join(dir, INDEX_FILE)], env);
      expect(written.code, written.stderr).toBe(0);
      // Every run made unreadable, size and time kept (nginx lists the same second): only the index still gives them.
      for (const file of files.filter((name) => name !== `pay/req-05/${path.basename(MIXED_EVAL_FAILED_RUN)}`)) await garbleRun(dir, file);
      const fromIndex = await run(["failures", nginx.url, "-r", "--json", "--no-cache"], env);
      expect(report(fromIndex)).toEqual(local);
      expect(fromIndex.stderr).toContain(`${INDEX_FILE}: 7 of 7 runs taken from it`);
      // An S3 option for an HTTP folder is refused before anything is read.
      const refused = await run(["failures", nginx.url, "--profile", "ci"], env);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toBe(`wink-debug: error: --profile is for s3:// targets, not ${nginx.url}\n`);
    } finally {
      await nginx.stop();
    }
  }, SEVERAL_STARTS_MS);
});

