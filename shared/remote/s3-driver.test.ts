import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { SourceError } from "../errors.js";
import { describeSourceContract, sourceFailure } from "./contract.test-support.js";
import { type S3DriverOptions, createS3Driver } from "./s3-driver.node.js";
import { Source, type SourceOptions } from "./source.js";
import { startCutProxy } from "./test-servers/cut-proxy.test-support.js";
import { freePort } from "./test-servers/daemons.test-support.js";
import { type NginxServer, startNginx } from "./test-servers/nginx.test-support.js";
import { type RadosGateway, startRadosGateway } from "./test-servers/radosgw.test-support.js";

const BUCKET = "runs";
let gateway: RadosGateway;
let namespaces = 0;
let scratch: string;

beforeAll(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), "wink-s3-source-"));
  gateway = await startRadosGateway();
  await gateway.createBucket(BUCKET);
}, 180_000);

afterAll(async () => {
  await gateway?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** Environment variables the SDK's provider chain reads, cleared so tests choose what it sees. */
const AWS_ENV = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_EC2_METADATA_DISABLED", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN"];
const savedEnv = Object.fromEntries(AWS_ENV.map((name) => [name, process.env[name]]));
let files = 0;

/** An environment with only `values` set: empty shared config files, no instance metadata (never leave loopback). */
function awsEnvironment(values: Record<string, string>): void {
  for (const name of AWS_ENV) delete process.env[name];
  const config = path.join(scratch, `config-${++files}`);
  const credentials = path.join(scratch, `credentials-${files}`);
  writeFileSync(config, "");
  writeFileSync(credentials, "");
  Object.assign(process.env, { AWS_CONFIG_FILE: config, AWS_SHARED_CREDENTIALS_FILE: credentials, AWS_EC2_METADATA_DISABLED: "true" }, values);
}

afterEach(() => {
  for (const [name, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

function s3(options: Partial<S3DriverOptions> & { url?: string }, sourceOptions: SourceOptions = {}): Source {
  return new Source(createS3Driver({ url: `s3://${BUCKET}/`, endpoint: gateway.endpoint, credentials: gateway.owner, ...options }), sourceOptions);
}


function expectNoSecret(error: SourceError, ...secrets: string[]): void {
  for (const secret of secrets) {
    expect(error.message).not.toContain(secret);
    expect(JSON.stringify(error)).not.toContain(secret);
    expect(String(error.stack)).not.toContain(secret);
    expect(error.cause).toBeUndefined();
  }
}

const fastRetries = { attempts: 3, baseDelayMs: 10, maxDelayMs: 50 };

describeSourceContract({
  name: "S3 (Ceph radosgw, AWS SDK v3)",
  sameSizeRewriteDetected: true,
  fresh: async () => {
    const prefix = `ns${++namespaces}/`;
    return {
      source: s3({ url: `s3://${BUCKET}/${prefix}` }),
      put: (key, body) => gateway.put(BUCKET, prefix + key, body),
      remove: (key) => gateway.remove(BUCKET, prefix + key),
    };
  },
});

describe("S3 driver against radosgw", () => {
  it("rejected keys are E_SOURCE_CREDENTIALS_INVALID, and neither secret nor signature leaks", async () => {
    await gateway.put(BUCKET, "auth/run.jsonl", "{}");
    const wrongSecret = await sourceFailure(s3({ credentials: { accessKeyId: gateway.owner.accessKeyId, secretAccessKey: "wrong-secret-7f3a" } }).read("auth/run.jsonl", { offset: 0, length: 2 }));
    expect(wrongSecret.code).toBe("E_SOURCE_CREDENTIALS_INVALID");
    expect(wrongSecret.data.storeCode).toBe("SignatureDoesNotMatch");
    expect(wrongSecret.message).toContain(`s3://${BUCKET}/auth/run.jsonl`);
    expectNoSecret(wrongSecret, "wrong-secret-7f3a", gateway.owner.secretAccessKey);
    const unknownKey = await sourceFailure(s3({ credentials: { accessKeyId: "AKIDUNKNOWN", secretAccessKey: "whatever-9c2e" } }).list(""));
    expect(unknownKey.code).toBe("E_SOURCE_CREDENTIALS_INVALID");
    expect(unknownKey.data.storeCode).toBe("InvalidAccessKeyId");
    expectNoSecret(unknownKey, "whatever-9c2e");
  });

  it("another user's valid keys get E_SOURCE_FORBIDDEN (403 AccessDenied)", async () => {
    await gateway.put(BUCKET, "private/run.jsonl", "{}");
    const stranger = s3({ credentials: gateway.stranger });
    for (const attempt of [() => stranger.list("private/"), () => stranger.read("private/run.jsonl", { offset: 0, length: 2 })]) {
      const error = await sourceFailure(attempt());
      expect(error.code).toBe("E_SOURCE_FORBIDDEN");
      expect(error.data.status).toBe(403);
      expectNoSecret(error, gateway.stranger.secretAccessKey);
    }
  });

  it("a missing bucket is E_SOURCE_NOT_FOUND naming it", async () => {
    const error = await sourceFailure(s3({ url: "s3://no-such-bucket-here/runs/" }).list(""));
    expect(error.code).toBe("E_SOURCE_NOT_FOUND");
    expect(error.data.reason).toBe("bucket");
    expect(error.message).toContain("no-such-bucket-here");
  });

  it("takes credentials from the environment, as AWS tools do", async () => {
    await gateway.put(BUCKET, "env/run.jsonl", "from env");
    awsEnvironment({ AWS_ACCESS_KEY_ID: gateway.owner.accessKeyId, AWS_SECRET_ACCESS_KEY: gateway.owner.secretAccessKey, AWS_ENDPOINT_URL_S3: gateway.endpoint });
    const source = new Source(createS3Driver({ url: `s3://${BUCKET}/env/` }));
    expect(Buffer.from((await source.read("run.jsonl", { offset: 5, length: 3 })).bytes).toString()).toBe("env");
    await source.close();
  });

  it("takes a named profile from the shared config and credentials files (--profile)", async () => {
    await gateway.put(BUCKET, "profile/run.jsonl", "from profile");
    awsEnvironment({});
    writeFileSync(process.env.AWS_CONFIG_FILE as string, "[profile review]\nregion = eu-west-3\n");
    writeFileSync(process.env.AWS_SHARED_CREDENTIALS_FILE as string, `[review]\naws_access_key_id = ${gateway.owner.accessKeyId}\naws_secret_access_key = ${gateway.owner.secretAccessKey}\n`);
    const source = new Source(createS3Driver({ url: `s3://${BUCKET}/profile/`, endpoint: gateway.endpoint, profile: "review" }));
    expect((await source.list("")).objects.map((object) => object.key)).toEqual(["run.jsonl"]);
    await source.close();
  });

  it("without credentials anywhere: E_SOURCE_CREDENTIALS_MISSING saying where to put them", async () => {
    awsEnvironment({});
    const source = new Source(createS3Driver({ url: `s3://${BUCKET}/`, endpoint: gateway.endpoint }));
    const error = await sourceFailure(source.list(""));
    expect(error.code).toBe("E_SOURCE_CREDENTIALS_MISSING");
    expect(error.message).toContain("AWS_PROFILE");
    expect(source.stats.requests).toBe(1);
  });

  it("expired credentials from a profile's credential_process: E_SOURCE_CREDENTIALS_EXPIRED", async () => {
    awsEnvironment({});
    const script = path.join(scratch, "expired-credentials.sh");
    const json = JSON.stringify({ Version: 1, AccessKeyId: gateway.owner.accessKeyId, SecretAccessKey: gateway.owner.secretAccessKey, SessionToken: "t", Expiration: "2020-01-01T00:00:00Z" });
    writeFileSync(script, `#!/bin/sh\necho '${json}'\n`, { mode: 0o755 });
    writeFileSync(process.env.AWS_CONFIG_FILE as string, `[profile stale]\ncredential_process = ${script}\n`);
    const source = new Source(createS3Driver({ url: `s3://${BUCKET}/`, endpoint: gateway.endpoint, profile: "stale" }));
    const error = await sourceFailure(source.list(""));
    expect(error.code).toBe("E_SOURCE_CREDENTIALS_EXPIRED");
    expect(error.message).toContain("refresh them");
    expectNoSecret(error, gateway.owner.secretAccessKey);
  });

  it("skips the folder markers some tools write (zero-byte keys ending in /)", async () => {
    await gateway.put(BUCKET, "markers/folder/", "");
    await gateway.put(BUCKET, "markers/folder/run.jsonl", "{}");
    const source = s3({ url: `s3://${BUCKET}/markers/` });
    expect((await source.list("")).objects.map((object) => object.key)).toEqual(["folder/run.jsonl"]);
    expect((await source.list("", { delimiter: "/" })).prefixes).toEqual(["folder/"]);
  });

  it("a connection cut mid-body is E_SOURCE_TRUNCATED after bounded retries", async () => {
    await gateway.put(BUCKET, "cut/run.bin", Buffer.alloc(600_000, 3));
    const port = Number(new URL(gateway.endpoint).port);
    const proxy = await startCutProxy({ host: "127.0.0.1", port }, { afterBytes: 30_000 });
    try {
      const source = s3({ endpoint: proxy.origin }, { retry: fastRetries });
      const error = await sourceFailure(source.read("cut/run.bin", { offset: 0, length: 600_000 }));
      expect(error.code).toBe("E_SOURCE_TRUNCATED");
      expect(error.message).toContain(`s3://${BUCKET}/cut/run.bin`);
      expect(error.data.attempts).toBe(3);
    } finally {
      await proxy.close();
    }
  });

  it("an endpoint nothing listens on is E_SOURCE_UNREACHABLE", async () => {
    const source = s3({ endpoint: `http://127.0.0.1:${await freePort()}` }, { retry: fastRetries });
    const error = await sourceFailure(source.stat("run.jsonl"));
    expect(error.code).toBe("E_SOURCE_UNREACHABLE");
  });
});

describe("S3 throttling (nginx stands in for an S3 endpoint answering 503 SlowDown: radosgw 16 has no rate limits)", () => {
  let nginx: NginxServer;
  let root: string;
  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), "wink-s3-slowdown-"));
    nginx = await startNginx(root);
  });
  afterAll(async () => {
    await nginx?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it("retries SlowDown with backoff a bounded number of times, then E_SOURCE_THROTTLED", async () => {
    const source = new Source(createS3Driver({ url: `s3://${BUCKET}/`, endpoint: `${nginx.url}s3-slowdown`, credentials: { accessKeyId: "a", secretAccessKey: "b" } }), { retry: fastRetries });
    const error = await sourceFailure(source.read("run.jsonl", { offset: 0, length: 10 }));
    expect(error.code).toBe("E_SOURCE_THROTTLED");
    expect(error.data.storeCode).toBe("SlowDown");
    expect(error.message).toContain(`s3://${BUCKET}/run.jsonl`);
    expect(error.message).toContain("gave up after 3 attempts");
    expect(source.stats.requests).toBe(3);
  });
});
