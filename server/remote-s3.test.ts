// The viewer on an S3 bucket served by a real Ceph radosgw (one single-node cluster for the
// whole file): every route answers as on the local folder; credentials come the way AWS
// tools take them and never reach an answer or the CLI's output; the store's failures are
// answers and exit codes with a stable code; live reload polls the listing's ETags.
import { statSync, writeFileSync } from "node:fs";
import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { writeArchive } from "../shared/archive/index.js";
import type { Source } from "../shared/remote/index.js";
import { type RadosGateway, startRadosGateway } from "../shared/remote/test-servers/radosgw.test-support.js";
import { startCli, stopClis, waitForUrl } from "./cli.test-support.js";
import type { RemotePoller } from "./library/remote-poller.js";
import { failure, folderObjects, parityFolder, routeTour, tourAnswers } from "./remote-parity.test-support.js";
import { cleanUp, get, snapshotLine, tempDir, testApp } from "./server.test-support.js";

const BUCKET = "runs";
let gateway: RadosGateway;
let scratch: string;
let prefixes = 0;

beforeAll(async () => {
  scratch = await tempDir("wink-s3-viewer-");
  gateway = await startRadosGateway();
  await gateway.createBucket(BUCKET);
}, 180_000);

afterAll(async () => {
  stopClis();
  await cleanUp();
  await gateway?.stop();
});

/** What the SDK's provider chain reads, cleared so each test chooses what it sees. */
const AWS_ENV = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_EC2_METADATA_DISABLED"];
const savedEnv = Object.fromEntries(AWS_ENV.map((name) => [name, process.env[name]]));
let configs = 0;

/** An environment with only `values` set, empty shared config files unless given, no instance metadata. */
function awsEnvironment(values: Record<string, string>, config = ""): NodeJS.ProcessEnv {
  for (const name of AWS_ENV) delete process.env[name];
  const configFile = path.join(scratch, `config-${++configs}`);
  const credentialsFile = path.join(scratch, `credentials-${configs}`);
  writeFileSync(configFile, config);
  writeFileSync(credentialsFile, "");
  Object.assign(process.env, { AWS_CONFIG_FILE: configFile, AWS_SHARED_CREDENTIALS_FILE: credentialsFile, AWS_EC2_METADATA_DISABLED: "true" }, values);
  return { ...process.env };
}

function ownerEnvironment(): NodeJS.ProcessEnv {
  return awsEnvironment({ AWS_ACCESS_KEY_ID: gateway.owner.accessKeyId, AWS_SECRET_ACCESS_KEY: gateway.owner.secretAccessKey });
}

afterEach(() => {
  stopClis();
  for (const [name, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

/** A fresh prefix of the bucket, as its s3:// URL. */
function prefix(): { key: string; url: string } {
  const key = `p${++prefixes}/`;
  return { key, url: `s3://${BUCKET}/${key}` };
}

const fastRetries = { attempts: 3, baseDelayMs: 10, maxDelayMs: 50 };
const s3 = () => ({ s3: { endpoint: gateway.endpoint }, retry: fastRetries });

describe("an S3 bucket (radosgw) served like a local folder", () => {
  it("answers every route of the tour as the local folder does", async () => {
    ownerEnvironment();
    const folder = await parityFolder({ archives: true });
    const { key, url } = prefix();
    const objects = await folderObjects(folder);
    for (const [name, bytes] of objects) await gateway.put(BUCKET, `${key}${name}`, bytes);
    const local = await testApp({ path: folder, recursive: true });
    const remote = await testApp({ path: url, recursive: true, remote: s3() });
    const tour = await routeTour(local);
    expect(tour.length).toBeGreaterThan(100);
    const expected = await tourAnswers(local, tour);
    expect(await tourAnswers(remote, tour)).toEqual(expected);
    expect((await get(remote, "/api/runs?limit=1")).json().store).toEqual({ kind: "s3", location: url, listing: { pages: 1, objects: objects.length, done: true, skipped_folders: [] }, health: null });
  });

  it("reopens an object overwritten between two reads, and polling sees a same-size rewrite by its ETag", async () => {
    ownerEnvironment();
    const { key, url } = prefix();
    const line = (id: string) => snapshotLine({ sessionId: id });
    await gateway.put(BUCKET, `${key}run.jsonl`, `${line("aaaa-1")}\n${line("aaaa-2")}\n`);
    const app = await testApp({ path: url, remote: s3(), watch: true, pollSeconds: 3600 });
    expect((await get(app, "/api/meta?file=run.jsonl&line=2")).json().session_id).toBe("aaaa-2");
    // Same size, other bytes: only the ETag tells them apart.
    await gateway.put(BUCKET, `${key}run.jsonl`, `${line("bbbb-1")}\n${line("bbbb-2")}\n`);
    const raw = await get(app, "/api/raw?file=run.jsonl&line=2");
    expect(raw.statusCode).toBe(200);
    expect(raw.json().tags.session_id).toBe("bbbb-2");
    await gateway.put(BUCKET, `${key}run.jsonl`, `${line("cccc-1")}\n${line("cccc-2")}\n`);
    await gateway.put(BUCKET, `${key}new.jsonl`, `${line("new")}\n`);
    await (app.watcher as RemotePoller).check();
    expect((app.watcher as RemotePoller).health).toMatchObject({ ok: true, code: null });
    expect(app.state.directory.get("run.jsonl")?.index).toBeNull();
    expect((await get(app, "/api/entries?file=run.jsonl")).json().map((entry: { session_id: string }) => entry.session_id)).toEqual(["cccc-1", "cccc-2"]);
    expect((await get(app, "/api/files")).json().files.map((file: { path: string }) => file.path)).toEqual(["new.jsonl", "run.jsonl"]);
  });
});

describe("a cache directory (--cache-dir) under an S3 bucket", () => {
  it("lets a later app read an archive's tree from disk after one revalidation, not after an overwrite, with no credential in the folder", async () => {
    ownerEnvironment();
    const { key, url } = prefix();
    await gateway.put(BUCKET, `${key}run.jsonl`, `${snapshotLine({ sessionId: "cached" })}\n`);
    const archiveOf = async (count: number): Promise<Uint8Array> => {
      const file = path.join(await tempDir("wink-s3-archive-"), "run.fs.zip");
      const entries = Array.from({ length: count }, (_, i) => ({ path: `src/${i}.txt`, kind: "file" as const, size: 1, mode: 0o644, mtimeMs: 0, chunks: async function* () { yield new Uint8Array([66]); } }));
      await writeArchive(file, entries, { compressionLevel: 0 });
      return readFile(file);
    };
    await gateway.put(BUCKET, `${key}run.fs.zip`, await archiveOf(3000));
    const cacheDir = path.join(await tempDir("wink-s3-cache-"), "blocks");
    const treeOf = async (): Promise<{ count: number; bytes: number; requests: number }> => {
      const app = await testApp({ path: url, remote: { ...s3(), cacheDir } });
      const source = (app.state.directory.store as unknown as { source: Source }).source;
      const [bytes, requests] = [source.stats.bytesReceived, source.stats.requests];
      const tree = await get(app, "/api/filesystem/tree?file=run.jsonl");
      expect(tree.statusCode).toBe(200);
      await source.disk?.flush();
      return { count: tree.json().length, bytes: source.stats.bytesReceived - bytes, requests: source.stats.requests - requests };
    };
    const cold = await treeOf();
    expect(cold.count).toBe(3000);
    expect(cold.bytes).toBeGreaterThan(150_000);
    expect(await treeOf()).toEqual({ count: 3000, bytes: 0, requests: 1 });
    // Overwritten: a new ETag, so the stored tail and blocks are another version's.
    await gateway.put(BUCKET, `${key}run.fs.zip`, await archiveOf(2999));
    const rewritten = await treeOf();
    expect(rewritten.count).toBe(2999);
    expect(rewritten.bytes).toBeGreaterThan(150_000);

    const names = await readdir(cacheDir);
    expect(names.length).toBeGreaterThan(2);
    const secrets = [gateway.owner.accessKeyId, gateway.owner.secretAccessKey];
    for (const name of names) {
      expect(statSync(path.join(cacheDir, name)).mode & 0o777).toBe(0o600);
      const content = (await readFile(path.join(cacheDir, name))).toString("latin1");
      for (const secret of secrets) expect(`${name}\n${content}`).not.toContain(secret);
    }
  });
});

describe("S3 credentials and failures", () => {
  it("refuses to start with no credentials, a wrong secret, another user's keys, a missing bucket or an expired profile, each with its code and no secret", async () => {
    const { key, url } = prefix();
    ownerEnvironment();
    await gateway.put(BUCKET, `${key}run.jsonl`, `${snapshotLine({ sessionId: "s" })}\n`);
    awsEnvironment({});
    expect(await failure(testApp({ path: url, remote: s3() }))).toMatchObject({ code: "E_SOURCE_CREDENTIALS_MISSING" });
    awsEnvironment({ AWS_ACCESS_KEY_ID: gateway.owner.accessKeyId, AWS_SECRET_ACCESS_KEY: "not-the-secret" });
    const wrong = await failure(testApp({ path: url, remote: s3() }));
    expect(wrong.code).toBe("E_SOURCE_CREDENTIALS_INVALID");
    expect(wrong.message).not.toContain("not-the-secret");
    awsEnvironment({ AWS_ACCESS_KEY_ID: gateway.stranger.accessKeyId, AWS_SECRET_ACCESS_KEY: gateway.stranger.secretAccessKey });
    expect(await failure(testApp({ path: url, remote: s3() }))).toMatchObject({ code: "E_SOURCE_FORBIDDEN" });
    ownerEnvironment();
    expect(await failure(testApp({ path: "s3://no-such-bucket-here/runs/", remote: s3() }))).toMatchObject({ code: "E_SOURCE_NOT_FOUND" });
    const script = path.join(scratch, "expired-credentials.sh");
    const json = JSON.stringify({ Version: 1, AccessKeyId: gateway.owner.accessKeyId, SecretAccessKey: gateway.owner.secretAccessKey, SessionToken: "t", Expiration: "2020-01-01T00:00:00Z" });
    writeFileSync(script, `#!/bin/sh\necho '${json}'\n`, { mode: 0o755 });
    awsEnvironment({}, `[profile stale]\ncredential_process = ${script}\n`);
    const expired = await failure(testApp({ path: url, remote: { ...s3(), s3: { endpoint: gateway.endpoint, profile: "stale" } } }));
    expect(expired.code).toBe("E_SOURCE_CREDENTIALS_EXPIRED");
    expect(expired.message).not.toContain(gateway.owner.secretAccessKey);
  });

  it("the CLI serves s3:// with --endpoint-url, --profile and --region, and prints no credential anywhere", async () => {
    const { key, url } = prefix();
    ownerEnvironment();
    await gateway.put(BUCKET, `${key}run.jsonl`, `${snapshotLine({ sessionId: "from-s3" })}\n`);
    const { accessKeyId, secretAccessKey } = gateway.owner;
    const env = awsEnvironment({}, `[profile viewer]\naws_access_key_id = ${accessKeyId}\naws_secret_access_key = ${secretAccessKey}\n`);
    const cli = startCli([url, "--endpoint-url", gateway.endpoint, "--profile", "viewer", "--region", "us-east-1", "--port", "0", "--poll", "3600"], { env });
    const served = await waitForUrl(cli.output, 60_000);
    expect(cli.output()).toContain(`serving ${url} (1 session file, polled every 3600 s)`);
    const answers: string[] = [];
    for (const route of ["api/runs", "api/files?wait=1", "api/run", "api/meta", "api/raw", "api/snapshots", "api/meta?file=missing.jsonl"]) {
      const response = await fetch(`${served}${route}`);
      answers.push(await response.text());
      if (!route.includes("missing")) expect(response.status, route).toBe(200);
    }
    expect(JSON.parse(answers[3] as string).session_id).toBe("from-s3");
    cli.child.kill("SIGTERM");
    expect(await cli.exit).toBe(0);
    for (const text of [...answers, cli.output(), cli.errors()]) {
      expect(text).not.toContain(secretAccessKey);
      expect(text).not.toContain(accessKeyId);
    }
  }, 120_000);

  it("the CLI exits 4 naming the code and what to do when the store refuses the credentials, without printing them", async () => {
    const { url } = prefix();
    const env = awsEnvironment({ AWS_ACCESS_KEY_ID: gateway.owner.accessKeyId, AWS_SECRET_ACCESS_KEY: "wrong-secret-value" });
    const cli = startCli([url, "--endpoint-url", gateway.endpoint, "--port", "0"], { env });
    expect(await cli.exit).toBe(4);
    expect(cli.errors()).toMatch(/^Listing s3:\/\/runs\/p\d+\/…\nwink-debug: error: .*\[E_SOURCE_CREDENTIALS_INVALID\]\n {2}Check the access key and secret/);
    expect(cli.errors() + cli.output()).not.toContain("wrong-secret-value");
  }, 120_000);
});
