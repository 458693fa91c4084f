// The package as users get it: `npm pack` of the built package, installed from the tarball
// into an empty directory with production dependencies only, then `npx wink-debug DIR`
// answering on loopback and `import("wink-debug/shared")` from there. Needs `npm run build`
// first (npm test builds); the registry is reached through npm's cache when it can.
import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WINK_FIXTURES } from "../fixtures/paths.js";
import { snapshotLine } from "../server/server.test-support.js";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "..");
/** Modules only tests use carry one suffix (scripts/architecture.test.ts holds every such module to it). */
const TEST_ONLY = [".test-support.", ".test.", "/fixtures/"];

let work: string;
let tarball: string;
let files: string[];
let installLog: string;
const consumer = (): string => path.join(work, "consumer");

beforeAll(async () => {
  if (!existsSync(path.join(ROOT, "dist", "server", "cli.bundle.cjs")) || !existsSync(path.join(ROOT, "dist", "web", "index.html"))) {
    throw new Error("dist/ is not built: run `npm run build` first (npm test does)");
  }
  work = await mkdtemp(path.join(tmpdir(), "wink-package-"));
  const packed = await run("npm", ["pack", "--json", "--pack-destination", work], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
  if (info === undefined) throw new Error(`npm pack printed no result: ${packed.stdout}`);
  tarball = path.join(work, info.filename);
  files = info.files.map((file) => file.path);
  await run("mkdir", [consumer()]);
  await writeFile(path.join(consumer(), "package.json"), `${JSON.stringify({ name: "consumer", version: "1.0.0", private: true, type: "module" })}\n`);
  const installed = await run("npm", ["install", "--omit=dev", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=warn", tarball], { cwd: consumer(), maxBuffer: 64 * 1024 * 1024 });
  installLog = `${installed.stdout}\n${installed.stderr}`;
}, 300_000);

/** Runs the installed `npx wink-debug DIR` on a loopback port while `use(url)` runs, then stops it. */
async function serving(directory: string, use: (url: string) => Promise<void>, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const child = spawn("npx", ["--no-install", "wink-debug", directory, "--port", "0"], { cwd: consumer(), env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL printed: ${output}`)), 30_000);
      child.stdout.on("data", () => {
        const match = /http:\/\/127\.0\.0\.1:\d+\//.exec(output);
        if (match !== null) {
          clearTimeout(timer);
          resolve(match[0]);
        }
      });
      child.on("exit", (code) => reject(new Error(`wink-debug exited with ${code}: ${output}`)));
    });
    await use(url);
  } finally {
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, "SIGTERM");
  }
}

afterAll(async () => {
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

describe("npm pack", () => {
  it("ships runtime files only: no source maps, no test-only modules, nothing that imports typescript", async () => {
    expect(files).toContain("dist/server/cli.cjs");
    expect(files).toContain("dist/shared/index.js");
    expect(files).toContain("dist/shared/index.d.ts");
    expect(files).toContain("dist/web/index.html");
    expect(files.filter((file) => file.endsWith(".map"))).toEqual([]);
    expect(files.filter((file) => TEST_ONLY.some((name) => file.includes(name)))).toEqual([]);
    // Only the conformance suite (the `wink-debug/conformance` export, whose peer vitest is optional) may import vitest.
    const shipped = files.filter((file) => file.endsWith(".js") && existsSync(path.join(ROOT, file)));
    const importers: string[] = [];
    for (const file of shipped) {
      const text = await readFile(path.join(ROOT, file), "utf8");
      if (/from\s*"typescript"|require\("typescript"\)/.test(text)) importers.push(`${file}: typescript`);
      if (/from\s*"vitest"/.test(text) && !file.startsWith("dist/shared/filesystem/conformance/")) importers.push(`${file}: vitest`);
    }
    expect(importers).toEqual([]);
  });

  it("installs from the tarball with production dependencies only, without engine warnings on this Node", async () => {
    expect(installLog).not.toMatch(/EBADENGINE|Unsupported engine/);
    const manifest = JSON.parse(await readFile(path.join(consumer(), "node_modules", "wink-debug", "package.json"), "utf8")) as { engines: { node: string } };
    expect(manifest.engines.node).toBe(">=20.19");
    expect(process.versions.node.split(".").map(Number)).toSatisfy(([major, minor]: number[]) => (major ?? 0) > 20 || ((major ?? 0) === 20 && (minor ?? 0) >= 19));
    expect(existsSync(path.join(consumer(), "node_modules", "vitest"))).toBe(false);
    expect(existsSync(path.join(consumer(), "node_modules", "typescript"))).toBe(false);
  });

  it("runs `npx wink-debug DIR`, which answers over HTTP on loopback", async () => {
    await serving(path.join(WINK_FIXTURES, "fszip-pr633"), async (url) => {
      const meta = await fetch(`${url}api/meta`);
      expect(meta.status).toBe(200);
      expect(((await meta.json()) as { session_id: string }).session_id).toBe("0f5f356f-9bfe-4e60-8222-b6a717dc8521");
      const page = await fetch(url, { headers: { accept: "text/html" } });
      const html = await page.text();
      expect(html.toLowerCase()).toContain("<!doctype html>");
      const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
      expect(script).toBeDefined();
      const asset = await fetch(new URL(script ?? "/", url));
      expect([asset.status, asset.headers.get("content-type")]).toEqual([200, "text/javascript; charset=utf-8"]);
    });
  }, 60_000);

  it("answers /api/meta without loading what the server never uses: Node's HTTP/2 (Fastify requires it when it loads)", async () => {
    const records = path.join(work, "loaded-modules");
    await run("mkdir", [records]);
    const probe = path.join(work, "loaded-modules.cjs");
    // Each node process of `npx wink-debug` (npx's own too) records, as it exits, the built-in modules it loaded.
    await writeFile(probe, `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(records)} + "/" + process.pid + ".json", JSON.stringify({ argv: process.argv, modules: process.moduleLoadList })));\n`);
    await serving(path.join(WINK_FIXTURES, "fszip-pr633"), async (url) => expect((await fetch(`${url}api/meta`)).status).toBe(200), { ...process.env, NODE_OPTIONS: `--require ${probe}` });
    let server: { argv: string[]; modules: string[] } | undefined;
    for (let waited = 0; server === undefined && waited < 20_000; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const written = await Promise.all((await readdir(records)).map(async (name) => JSON.parse(await readFile(path.join(records, name), "utf8")) as { argv: string[]; modules: string[] }));
      server = written.find((record) => /wink-debug|cli\.js$/.test(record.argv[1] ?? "") && !/npx/.test(record.argv[1] ?? ""));
    }
    expect(server?.modules).toContain("NativeModule http");
    expect(server?.modules.filter((name) => /^NativeModule (internal\/)?http2/.test(name))).toEqual([]);
  }, 60_000);

  it("answers a huge line's /api/raw from its CPU worker thread (a module of its own in the package)", async () => {
    expect(files).toContain("dist/server/cpu-worker.js");
    const served = path.join(work, "served");
    await run("mkdir", [served]);
    const text = "x".repeat(1_200_000);
    await writeFile(path.join(served, "big.jsonl"), `${snapshotLine({ sessionId: "big", slices: [{ type: "app.state:Note", items: [{ text, n: 2n ** 60n + 1n }] }] })}\n`);
    await serving(served, async (url) => {
      const raw = await fetch(`${url}api/raw?file=big.jsonl&line=1`);
      expect(raw.status).toBe(200);
      const body = await raw.text();
      // Lossless numbers as the worker writes them back, and the whole text.
      expect(body).toContain('"n":1152921504606846977');
      expect((JSON.parse(body) as { slices: { items: { text: string }[] }[] }).slices[0]?.items[0]?.text).toHaveLength(text.length);
    });
  }, 60_000);

  it("loads the AWS SDK (kept out of the CLI bundle) for s3:// targets: an endpoint nothing listens on is exit 4, not a crash", async () => {
    const env = { ...process.env, AWS_ACCESS_KEY_ID: "AKIAEXAMPLEKEY", AWS_SECRET_ACCESS_KEY: "not-a-real-secret", AWS_EC2_METADATA_DISABLED: "true" };
    const result = await run("npx", ["--no-install", "wink-debug", "s3://runs/ci/", "--endpoint-url", "http://127.0.0.1:9", "--port", "0"], { cwd: consumer(), env }).then(
      () => ({ code: 0, stderr: "" }),
      (error: { code?: number; stderr?: string }) => ({ code: error.code ?? -1, stderr: error.stderr ?? "" }),
    );
    expect(result.code).toBe(4);
    expect(result.stderr).toContain("wink-debug: error: Cannot reach the store for s3://runs/ci/: connection refused [E_SOURCE_UNREACHABLE]");
    expect(result.stderr).not.toContain("NodeVersionSupportWarning");
    expect(result.stderr).not.toContain("not-a-real-secret");
  }, 60_000);

  it("imports wink-debug/shared from the installed package", async () => {
    const script = `
      const shared = await import("wink-debug/shared");
      const fs = new shared.InMemoryFilesystem();
      await fs.write("a.txt", "hello\\n");
      const parsed = shared.parsePythonJson('{"n": NaN, "big": 123456789012345678901234567890}');
      console.log(JSON.stringify({ read: (await fs.read("a.txt")).content, big: String(parsed.big), exports: Object.keys(shared).length, internal: ["STAGING_PREFIX", "TreeStaging", "lineBody", "toBase64"].filter((name) => name in shared) }));
    `;
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: consumer() });
    const result = JSON.parse(stdout) as { read: string; big: string; exports: number; internal: string[] };
    expect(result.read).toContain("hello");
    expect(result.big).toBe("123456789012345678901234567890");
    // The curated list (shared/index.ts), not every module's helpers.
    expect(result.exports).toBeGreaterThan(100);
    expect(result.internal).toEqual([]);
  }, 60_000);

  it("imports the viewer's model from wink-debug/viewer, apart from the agent library", async () => {
    const script = `
      const viewer = await import("wink-debug/viewer");
      const shared = await import("wink-debug/shared");
      const diff = viewer.diffText("a\\nb\\n", "a\\nc\\n");
      // The server's contract, as a client builds its requests from it.
      const request = viewer.routeUrl(viewer.VIEWER_ROUTES.runSearch, { file: "runs/a b.jsonl", q: "x", limit: 5 });
      console.log(JSON.stringify({ hunks: diff.hunks.length, request, inLibrary: ["diffWorkspaces", "diffText", "buildTimeline", "groupBundles", "VIEWER_ROUTES", "routeUrl"].filter((name) => name in shared) }));
    `;
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: consumer() });
    const result = JSON.parse(stdout) as { hunks: number; request: string; inLibrary: string[] };
    expect(result.hunks).toBe(1);
    expect(result.request).toBe("/api/run/search?file=runs%2Fa+b.jsonl&q=x&limit=5");
    expect(result.inLibrary).toEqual([]);
  }, 60_000);
});
