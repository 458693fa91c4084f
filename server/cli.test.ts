// The real CLI as a user runs it: a child process on a loopback port, talked to over HTTP.
import { chmod, copyFile, stat, writeFile } from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WINK_BUNDLE_FIXTURES } from "../fixtures/paths.js";
import { startCli, stopClis, waitForUrl } from "./cli.test-support.js";
import { FIXTURES, cleanUp, tempDir } from "./server.test-support.js";

/** Tests that start the CLI several times: each start transpiles the sources (seconds on a loaded 2-core machine). */
const SEVERAL_STARTS_MS = 90_000;

afterEach(async () => {
  stopClis();
  await cleanUp();
});

describe("wink-debug CLI", () => {
  it("serves a fixture directory on a loopback port and stops cleanly on SIGTERM", async () => {
    const cli = startCli([path.join(FIXTURES, "fszip-pr633"), "--port", "0"]);
    const url = await waitForUrl(cli.output);
    const meta = await fetch(`${url}api/meta`);
    expect(meta.status).toBe(200);
    expect(((await meta.json()) as { session_id: string }).session_id).toBe("0f5f356f-9bfe-4e60-8222-b6a717dc8521");
    const tree = (await (await fetch(`${url}api/filesystem/tree`)).json()) as unknown[];
    expect(tree).toHaveLength(18);
    const page = await fetch(url, { headers: { accept: "text/html" } });
    expect((await page.text()).toLowerCase()).toContain("<!doctype html>");
    // fetch() will not send a foreign Host header; node:http will (as a rebinding page's browser does).
    const rebinding = await new Promise<number>((resolve, reject) => {
      const request = http.get(`${url}api/meta`, { headers: { host: `attacker.example:${new URL(url).port}` } }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on("error", reject);
    });
    expect(rebinding).toBe(403);
    cli.child.kill("SIGTERM");
    expect(await cli.exit).toBe(0);
    expect(cli.output()).toContain("shutting down");
  });

  it("answers requests sent the moment the URL appears, before and after the full app takes over", async () => {
    const cli = startCli([path.join(FIXTURES, "fszip-pr633"), "--port", "0"]);
    const url = await waitForUrl(cli.output);
    // At once: the first stage answers /api/meta; the others wait for Fastify and get its answers.
    const [meta, snapshots, page, select] = await Promise.all([
      fetch(`${url}api/meta`),
      fetch(`${url}api/snapshots`),
      fetch(url, { headers: { accept: "text/html" } }),
      fetch(`${url}api/select`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ line_number: 1 }) }),
    ]);
    expect(meta.status).toBe(200);
    const first = await meta.text();
    expect((JSON.parse(first) as { session_id: string }).session_id).toBe("0f5f356f-9bfe-4e60-8222-b6a717dc8521");
    expect(meta.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(((await snapshots.json()) as { path: string }[]).map((file) => file.path)).toEqual(["0f5f356f-9bfe-4e60-8222-b6a717dc8521.jsonl"]);
    expect((await page.text()).toLowerCase()).toContain("<!doctype html>");
    expect(select.status).toBe(200);
    await select.text();
    // Fastify's answer to the same question, byte for byte.
    expect(await (await fetch(`${url}api/meta`)).text()).toBe(first);
    cli.child.kill("SIGTERM");
    expect(await cli.exit).toBe(0);
  });

  it("exits cleanly on SIGTERM while the full app is still loading, closing the requests that waited for it", async () => {
    const cli = startCli([path.join(FIXTURES, "fszip-pr633"), "--port", "0"]);
    const url = await waitForUrl(cli.output);
    const meta = await fetch(`${url}api/meta`);
    expect(meta.status).toBe(200);
    await meta.text();
    // Waits for the full app (which takes seconds to load from source), then the signal.
    const waiting = fetch(`${url}api/snapshots`).then(
      (response) => response.status,
      () => "closed",
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    cli.child.kill("SIGTERM");
    expect(await cli.exit).toBe(0);
    expect(cli.output()).toContain("SIGTERM received, shutting down");
    expect(cli.errors()).toBe("");
    expect(await waiting).toBe("closed");
  });

  it("serves the bundled example when given no directory", async () => {
    const cli = startCli(["--port", "0"]);
    const url = await waitForUrl(cli.output);
    expect(cli.output()).toContain(path.join("examples", "snapshots"));
    const files = (await (await fetch(`${url}api/files?wait=1`)).json()) as { files: { path: string; status: string }[] };
    expect(files.files.length).toBeGreaterThanOrEqual(1);
    expect(files.files.every((file) => file.status === "ready")).toBe(true);
    const archives = await Promise.all(files.files.map(async (file) => (await (await fetch(`${url}api/filesystem/meta?file=${encodeURIComponent(file.path)}`)).json()) as { source: string | null }));
    expect(archives.some((meta) => meta.source === "archive")).toBe(true);
    cli.child.kill("SIGINT");
    expect(await cli.exit).toBe(0);
  });

  it("fails with one line naming the path, and exit code 2, for a missing path, an empty directory or a non-session file", async () => {
    const empty = await tempDir();
    const text = path.join(empty, "notes.txt");
    await writeFile(text, "hello");
    const empty2 = await tempDir();
    for (const target of [path.join(empty, "missing"), empty2, text]) {
      const cli = startCli([target, "--port", "0"]);
      expect(await cli.exit, target).toBe(2);
      const lines = cli.errors().trim().split("\n");
      expect(lines, cli.errors()).toHaveLength(1);
      expect(lines[0]).toMatch(/^wink-debug: error: /);
      expect(lines[0]).toContain(path.basename(target));
      expect(cli.errors()).not.toMatch(/\n\s+at /);
    }
  }, SEVERAL_STARTS_MS);

  it("fails with one line naming the path for a session file it may not read", async () => {
    const dir = await tempDir();
    const locked = path.join(dir, "locked.jsonl");
    await copyFile(path.join(FIXTURES, "fszip-pr633", "0f5f356f-9bfe-4e60-8222-b6a717dc8521.jsonl"), locked);
    await chmod(locked, 0o000);
    const cli = startCli([locked, "--port", "0"], { withoutDacOverride: true });
    expect(await cli.exit).toBe(2);
    const lines = cli.errors().trim().split("\n");
    expect(lines, cli.errors()).toHaveLength(1);
    expect(lines[0]).toMatch(/^wink-debug: error: .*locked\.jsonl.*permission denied/i);
    expect(cli.output()).not.toMatch(/http:\/\//);
    // The same file readable: the same command serves it (so the refusal above was the permission).
    await chmod(locked, 0o644);
    const readable = startCli([locked, "--port", "0"], { withoutDacOverride: true });
    expect(await waitForUrl(readable.output)).toMatch(/^http:\/\/127\.0\.0\.1:/);
    readable.child.kill("SIGTERM");
    expect(await readable.exit).toBe(0);
  }, SEVERAL_STARTS_MS);

  it("refuses a busy port given with --port (exit 3) and bad arguments (exit 2)", async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen({ host: "127.0.0.1", port: 0 }, resolve));
    const address = blocker.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    try {
      const busy = startCli([path.join(FIXTURES, "fszip-pr633"), "--port", String(port)]);
      expect(await busy.exit).toBe(3);
      expect(busy.errors()).toContain(`port ${port}`);
    } finally {
      blocker.close();
    }
    const bad = startCli(["--port", "eighty"]);
    expect(await bad.exit).toBe(2);
    expect(bad.errors()).toContain("--port");
    const refused = ["8", "lots"].map((memory) => ({ memory, cli: startCli([path.join(FIXTURES, "fszip-pr633"), "--memory", memory]) }));
    for (const { memory, cli } of refused) {
      expect(await cli.exit, memory).toBe(2);
      expect(cli.errors()).toContain(`--memory must be a whole number of MiB, at least 16, got ${memory}`);
    }
    const caps = [
      { cap: "3", message: "--max-connections must be a whole number, at least 8, got 3" },
      { cap: "lots", message: "--max-connections must be a whole number, at least 8, got lots" },
      // Linux caps the open-file limit far below this (fs.nr_open: 1,048,576 by default).
      { cap: "9999999", message: "--max-connections must be below the open-file limit (ulimit -n: " },
    ].map((refusal) => ({ ...refusal, cli: startCli([path.join(FIXTURES, "fszip-pr633"), "--max-connections", refusal.cap]) }));
    for (const { message, cli } of caps) {
      expect(await cli.exit, message).toBe(2);
      expect(cli.errors()).toContain(message);
    }
    const timeouts = [
      { args: ["http://127.0.0.1:9/runs/", "--store-timeout", "0"], message: "--store-timeout must be a whole number of seconds, at least 1, got 0" },
      { args: ["http://127.0.0.1:9/runs/", "--store-timeout", "soon"], message: "--store-timeout must be a whole number of seconds, at least 1, got soon" },
      { args: [path.join(FIXTURES, "fszip-pr633"), "--store-timeout", "5"], message: "--store-timeout is for s3:// and http(s):// targets" },
    ].map((refusal) => ({ ...refusal, cli: startCli(refusal.args) }));
    for (const { message, cli } of timeouts) {
      expect(await cli.exit, message).toBe(2);
      expect(cli.errors()).toContain(message);
    }
  }, SEVERAL_STARTS_MS);

  it("serves a folder of WINK debug bundles", async () => {
    const folder = startCli([path.join(WINK_BUNDLE_FIXTURES, "06-iterations"), "--port", "0"]);
    const url = await waitForUrl(folder.output);
    expect(folder.output()).toContain("(3 debug bundles)");
    const meta = (await (await fetch(`${url}api/meta`)).json()) as { bundle_id: string; status: string };
    expect(meta.status).toBe("success");
    expect((await (await fetch(`${url}api/logs/facets`)).json()) as { levels: unknown[] }).toHaveProperty("levels");
    folder.child.kill("SIGTERM");
    expect(await folder.exit).toBe(0);
  });

  it("serves with a memory budget given by --memory", async () => {
    const cli = startCli([path.join(FIXTURES, "fszip-pr633"), "--port", "0", "--memory", "16"]);
    const url = await waitForUrl(cli.output);
    expect((await fetch(`${url}api/meta`)).status).toBe(200);
    expect((await (await fetch(`${url}api/filesystem/tree`)).json()) as unknown[]).toHaveLength(18);
    cli.child.kill("SIGTERM");
    expect(await cli.exit).toBe(0);
  });

  it("holds its connections to --max-connections, idle ones shed first", async () => {
    const cli = startCli([path.join(FIXTURES, "fszip-pr633"), "--port", "0", "--max-connections", "16"]);
    const url = new URL(await waitForUrl(cli.output));
    const idle = Array.from({ length: 40 }, () => net.connect({ host: "127.0.0.1", port: Number(url.port) }));
    const closed = await Promise.all(
      idle.map(
        (socket) =>
          new Promise<boolean>((resolve) => {
            socket.on("error", () => undefined);
            socket.once("close", () => resolve(true));
            setTimeout(() => resolve(false), 2_000);
          }),
      ),
    );
    // 16 less the reserve of 4 (a quarter of the cap) stay open, waiting for their request.
    expect(closed.filter(Boolean)).toHaveLength(40 - 12);
    expect((await fetch(`${url.href}api/meta`)).status).toBe(200);
    for (const socket of idle) socket.destroy();
    cli.child.kill("SIGTERM");
    expect(await cli.exit).toBe(0);
  });

  it("serves one debug bundle given directly", async () => {
    const failed = "02-failed-run/e523fd0d-e949-41b5-8de3-f0b1f5920007_20261126_054534.zip";
    const direct = startCli([path.join(WINK_BUNDLE_FIXTURES, failed), "--port", "0"]);
    const directUrl = await waitForUrl(direct.output);
    expect(((await (await fetch(`${directUrl}api/error`)).json()) as { type: string }).type).toBe("PromptEvaluationError");
    direct.child.kill("SIGTERM");
    expect(await direct.exit).toBe(0);
  });

  it("bundle on a folder whose runs are in subfolders exits 2 with a hint to use -r, writing nothing", async () => {
    const output = path.join(os.tmpdir(), `wink-flat-${process.pid}.html`);
    const flat = startCli(["bundle", WINK_BUNDLE_FIXTURES, "-o", output]);
    expect(await flat.exit).toBe(2);
    expect(flat.errors()).toContain(`No loadable session file or WINK debug bundle at the top of ${WINK_BUNDLE_FIXTURES}`);
    expect(flat.errors()).toContain("run it again with -r (--recursive)");
    expect(flat.output()).not.toContain("wrote");
    await expect(stat(output)).rejects.toThrow(/ENOENT/);
  });

  it("finds the EvalLoop layout with -r, and says what it found nothing under without", async () => {
    // The EvalLoop writes {target}/{request_id}/*.zip: found with -r, and named when not.
    const flat = startCli([path.join(WINK_BUNDLE_FIXTURES, "08-eval"), "--port", "0"]);
    expect(await flat.exit).toBe(2);
    expect(flat.errors()).toMatch(/No session files or debug bundles found under .*08-eval/);
    const recursive = startCli([path.join(WINK_BUNDLE_FIXTURES, "08-eval"), "-r", "--port", "0"]);
    const recursiveUrl = await waitForUrl(recursive.output);
    expect(recursive.output()).toContain("(1 debug bundle, recursive)");
    expect(((await (await fetch(`${recursiveUrl}api/bundles`)).json()) as unknown[]).length).toBe(1);
    recursive.child.kill("SIGTERM");
    expect(await recursive.exit).toBe(0);
  }, SEVERAL_STARTS_MS);

  it("prints help and version", async () => {
    const help = startCli(["--help"]);
    expect(await help.exit).toBe(0);
    expect(help.output()).toContain("Usage: wink-debug");
    expect(help.output()).toMatch(/--memory MIB +memory for caches .*\(default 96\)/s);
    expect(help.output()).toMatch(/--cache-dir DIR +keep what is read from a remote store .*without it nothing is written anywhere/s);
    expect(help.output()).toMatch(/--max-connections N\s+most connections open at once \(default: the open-file limit less\s+256 for files, at most 4096: 768 under ulimit -n 1024\)/);
    expect(help.output()).toMatch(/--cache-size MIB most MiB kept in --cache-dir, .*\(default 1024\)/s);
    const version = startCli(["--version"]);
    expect(await version.exit).toBe(0);
    expect(version.output()).toMatch(/^wink-debug \d+\.\d+\.\d+/);
  });
});
