import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SourceError } from "../errors.js";
import { describeSourceContract, replaceFile, sourceFailure } from "./contract.test-support.js";
import { createHttpDriver } from "./http-driver.node.js";
import { INDEX_FILE_NAME, renderIndexFile } from "./index-file.js";
import { createLocalDriver } from "./local-driver.node.js";
import { Source, type SourceOptions } from "./source.js";
import { startCutProxy } from "./test-servers/cut-proxy.test-support.js";
import { freePort } from "./test-servers/daemons.test-support.js";
import { type NginxServer, PRIVATE_PASSWORD, PRIVATE_USER, startNginx } from "./test-servers/nginx.test-support.js";

let nginx: NginxServer;
let root: string;
let namespaces = 0;

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), "wink-http-source-"));
  nginx = await startNginx(root);
});

afterAll(async () => {
  await nginx?.stop();
  rmSync(root, { recursive: true, force: true });
});


/** A new folder under the served root, and its URL below `location` ("", "plain/", "private/"…). */
function namespace(location = ""): { folder: string; url: string } {
  const name = `ns${++namespaces}`;
  const folder = path.join(root, name);
  mkdirSync(folder);
  return { folder, url: `${nginx.url}${location}${name}/` };
}

function source(url: string, options: SourceOptions = {}): Source {
  return new Source(createHttpDriver({ url }), options);
}


const fastRetries = { attempts: 3, baseDelayMs: 10, maxDelayMs: 50 };

describeSourceContract({
  name: "HTTP (nginx, JSON directory listings)",
  // nginx's ETag is the mtime in seconds and the size: a same-size rewrite within a second keeps it.
  sameSizeRewriteDetected: false,
  fresh: async () => {
    const { folder, url } = namespace();
    return {
      source: source(url),
      put: async (key, body) => replaceFile(folder, key, body),
      remove: async (key) => rmSync(path.join(folder, key)),
    };
  },
});

describe("HTTP driver against nginx", () => {
  it("answers 403 and 404 with errors naming the URL", async () => {
    const forbidden = await sourceFailure(source(`${nginx.url}forbidden/`).read("run.jsonl", { offset: 0, length: 10 }));
    expect(forbidden.code).toBe("E_SOURCE_FORBIDDEN");
    expect(forbidden.message).toContain(`${nginx.url}forbidden/run.jsonl`);
    expect(forbidden.data.status).toBe(403);
    const gone = await sourceFailure(source(`${nginx.url}gone/`).stat("run.jsonl"));
    expect(gone.code).toBe("E_SOURCE_NOT_FOUND");
    expect(gone.url).toBe(`${nginx.url}gone/run.jsonl`);
  });

  it("retries a store that stays throttled (503) a bounded number of times, then says so", async () => {
    const busy = source(`${nginx.url}busy/`, { retry: fastRetries });
    const started = Date.now();
    const error = await sourceFailure(busy.read("run.jsonl", { offset: 0, length: 10 }));
    expect(error.code).toBe("E_SOURCE_THROTTLED");
    expect(error.message).toContain("gave up after 3 attempts");
    expect(error.data.attempts).toBe(3);
    expect(busy.stats.requests).toBe(3);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("gets through real rate limiting (nginx limit_req, 2 requests/s) by backing off with jitter", async () => {
    const { folder } = namespace();
    replaceFile(folder, "run.jsonl", "0123456789".repeat(100));
    const throttled = source(`${nginx.url}throttled/${path.basename(folder)}/`, { retry: { attempts: 12, baseDelayMs: 200, maxDelayMs: 1_000 } });
    const reads = await Promise.all([0, 100, 200, 300].map((offset) => throttled.read("run.jsonl", { offset, length: 10 })));
    for (const read of reads) expect(Buffer.from(read.bytes).toString()).toBe("0123456789");
    expect(throttled.stats.retries).toBeGreaterThan(0);
  });

  it("turns a stalled transfer into E_SOURCE_TIMEOUT within the budget", async () => {
    const { folder } = namespace();
    replaceFile(folder, "big.bin", Buffer.alloc(200_000, 1));
    const slow = source(`${nginx.url}slow/${path.basename(folder)}/`, { timeoutMs: 400, retry: fastRetries });
    const started = Date.now();
    const error = await sourceFailure(slow.read("big.bin", { offset: 0, length: 200_000 }));
    expect(error.code).toBe("E_SOURCE_TIMEOUT");
    expect(error.message).toContain("big.bin");
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("sends user:password from the URL as Basic auth and never shows it", async () => {
    const { folder, url } = namespace("private/");
    replaceFile(folder, "run.jsonl", "secret run");
    const withoutCredentials = await sourceFailure(source(url).read("run.jsonl", { offset: 0, length: 6 }));
    expect(withoutCredentials.code).toBe("E_SOURCE_CREDENTIALS_MISSING");
    const wrongUrl = url.replace("http://", `http://${PRIVATE_USER}:not-the-password@`);
    const wrong = await sourceFailure(source(wrongUrl).read("run.jsonl", { offset: 0, length: 6 }));
    expect(wrong.code).toBe("E_SOURCE_CREDENTIALS_INVALID");
    expect(JSON.stringify(wrong)).not.toContain("not-the-password");
    expect(wrong.message).not.toContain("not-the-password");
    const good = source(url.replace("http://", `http://${PRIVATE_USER}:${PRIVATE_PASSWORD}@`));
    expect(Buffer.from((await good.read("run.jsonl", { offset: 0, length: 6 })).bytes).toString()).toBe("secret");
    expect((await good.list("")).objects.map((object) => object.key)).toEqual(["run.jsonl"]);
    expect(good.location).toBe(url);
    expect(good.describe("run.jsonl")).not.toContain(PRIVATE_PASSWORD);
  });

  it("reports a cut connection as E_SOURCE_TRUNCATED after bounded retries, and recovers when the next connection holds", async () => {
    const { folder } = namespace();
    const body = Buffer.from(Array.from({ length: 1_000_000 }, (_, i) => i % 253));
    replaceFile(folder, "run.bin", body);
    const always = await startCutProxy({ host: "127.0.0.1", port: nginx.port }, { afterBytes: 20_000 });
    try {
      const cut = source(`${always.origin}/${path.basename(folder)}/`, { retry: fastRetries });
      const error = await sourceFailure(cut.read("run.bin", { offset: 0, length: 500_000 }));
      expect(error.code).toBe("E_SOURCE_TRUNCATED");
      expect(error.message).toMatch(/run\.bin: the connection was cut after \d+ of 500000 bytes/);
      expect(error.data.attempts).toBe(3);
    } finally {
      await always.close();
    }
    const once = await startCutProxy({ host: "127.0.0.1", port: nginx.port }, { afterBytes: 300_000, cuts: 1 });
    try {
      const flaky = source(`${once.origin}/${path.basename(folder)}/`, { retry: fastRetries });
      const stream = await flaky.stream("run.bin", { offset: 0, length: body.length });
      const parts: Buffer[] = [];
      for await (const chunk of stream.chunks) parts.push(Buffer.from(chunk));
      expect(Buffer.concat(parts).equals(body)).toBe(true);
      expect(flaky.stats.retries).toBe(1); // resumed where the cut left it, with If-Range
      expect(flaky.stats.bytesReceived).toBeLessThan(body.length + 300_000);
    } finally {
      await once.close();
    }
  });

  it("fails fast with E_SOURCE_UNREACHABLE when nothing listens", async () => {
    const port = await freePort();
    const unreachable = source(`http://127.0.0.1:${port}/runs/`, { retry: fastRetries });
    const error = await sourceFailure(unreachable.list(""));
    expect(error.code).toBe("E_SOURCE_UNREACHABLE");
    expect(error.message).toContain(`127.0.0.1:${port}`);
    expect(unreachable.stats.requests).toBe(1);
  });

  it("cancels the whole new file that If-Range answers with after a change", async () => {
    const { folder, url } = namespace();
    replaceFile(folder, "big.bin", Buffer.alloc(20_000_000, 1));
    const http = source(url);
    const reader = await http.open("big.bin");
    await reader.read(0, 10);
    const before = http.stats.bytesReceived;
    replaceFile(folder, "big.bin", Buffer.alloc(20_000_001, 2));
    expect((await sourceFailure(reader.read(10_000_000, 10))).code).toBe("E_SOURCE_CHANGED");
    expect(http.stats.bytesReceived).toBe(before);
  });

  it("lists from wink-index.json where the server has no directory listings, revalidating it", async () => {
    const { folder, url } = namespace("plain/");
    replaceFile(folder, "runs/a.jsonl", "a");
    const plain = source(url);
    const error = await sourceFailure(plain.list(""));
    expect(error.code).toBe("E_SOURCE_FAILED");
    expect(error.message).toContain("autoindex_format json");
    expect(error.message).toContain(INDEX_FILE_NAME);
    const local = new Source(createLocalDriver({ root: folder }));
    replaceFile(folder, INDEX_FILE_NAME, renderIndexFile((await local.list("")).objects));
    const indexed = source(url);
    expect((await indexed.list("", { delimiter: "/" })).prefixes).toEqual(["runs/"]);
    expect((await indexed.list("runs/")).objects.map((object) => [object.key, object.size])).toEqual([["runs/a.jsonl", 1]]);
    replaceFile(folder, "runs/b.jsonl", "bb");
    replaceFile(folder, INDEX_FILE_NAME, renderIndexFile((await local.list("")).objects));
    expect((await indexed.list("runs/")).objects.map((object) => object.key)).toEqual(["runs/a.jsonl", "runs/b.jsonl"]);
    expect(Buffer.from((await indexed.read("runs/b.jsonl", { suffix: 2 })).bytes).toString()).toBe("bb");
  });

  it("refuses root URLs it cannot use, without echoing credentials", () => {
    expect(() => createHttpDriver({ url: "ftp://host/runs/" })).toThrow(SourceError);
    expect(() => createHttpDriver({ url: "https://host/runs/?token=abc" })).toThrow(/query/);
    try {
      createHttpDriver({ url: "https://user:hunter2@host/runs/?token=abc" });
    } catch (error) {
      expect(String(error)).not.toContain("hunter2");
      expect(String(error)).not.toContain("abc");
    }
  });
});
