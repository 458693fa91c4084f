import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WINK_BUNDLE_FIXTURES, winkFixture } from "../fixtures/paths.js";
import { BundleError, buildBundle, bundleMain } from "./bundle.js";

let dir: string;
let web: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "wink-bundle-"));
  // A stand-in for the standalone build: one script that tries to end its <script> early.
  web = path.join(dir, "web");
  await mkdir(path.join(web, "assets"), { recursive: true });
  await writeFile(path.join(web, "index.html"), `<!doctype html><html><head><script type="module" crossorigin src="./assets/app.js"></script><link rel="stylesheet" crossorigin href="./assets/app.css"></head><body><div id="root"></div></body></html>`);
  await writeFile(path.join(web, "assets", "app.js"), `const s = "</script><script>alert(1)</script>"; console.log(s, "<!--");`);
  await writeFile(path.join(web, "assets", "app.css"), "body { color: red }");
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function parts(html: string) {
  const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? "";
  const data = /<script type="application\/json" id="wink-bundle">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? "";
  const scripts = [...html.matchAll(/<script type="module">([\s\S]*?)<\/script>/g)].map((match) => match[1] ?? "");
  return { csp, data, scripts };
}

describe("wink-debug bundle", () => {
  it("inlines the app and the run's files, pinning the one script by its hash", async () => {
    const output = path.join(dir, "pair.html");
    const result = await buildBundle({ source: winkFixture("fszip-pr633"), output, webDir: web });
    expect([...result.files].sort()).toEqual(["0f5f356f-9bfe-4e60-8222-b6a717dc8521.fs.zip", "0f5f356f-9bfe-4e60-8222-b6a717dc8521.jsonl"]);
    const html = await readFile(output, "utf8");
    const { csp, data, scripts } = parts(html);
    expect(scripts).toHaveLength(1);
    const script = scripts[0] ?? "";
    expect(script).not.toMatch(/<\/script/i);
    expect(script).toContain("<\\/script>");
    expect(csp).toContain(`script-src 'sha256-${createHash("sha256").update(script).digest("base64")}'`);
    expect(csp).toContain("connect-src 'none'");
    expect(csp).toContain("default-src 'none'");
    const run = JSON.parse(data) as { format: string; files: { path: string; base64: string }[] };
    expect(run.format).toBe("wink-debug-bundle");
    const jsonl = run.files.find((file) => file.path.endsWith(".jsonl"));
    expect(Buffer.from(jsonl?.base64 ?? "", "base64")).toEqual(await readFile(winkFixture("fszip-pr633/0f5f356f-9bfe-4e60-8222-b6a717dc8521.jsonl")));
    expect(html).toContain("<style>body { color: red }</style>");
  });

  it("escapes markup in the data block", async () => {
    const run = path.join(dir, "markup");
    await mkdir(run, { recursive: true });
    await writeFile(path.join(run, "x<!--<b>.jsonl"), "{}\n");
    const output = path.join(dir, "markup.html");
    await buildBundle({ source: run, output, webDir: web });
    const { data } = parts(await readFile(output, "utf8"));
    expect(data).not.toContain("<");
    expect((JSON.parse(data) as { files: { path: string }[] }).files[0]?.path).toBe("x<!--<b>.jsonl");
  });

  it("bundles one session file with the archives it names or shares a stem with", async () => {
    const run = path.join(dir, "single");
    await mkdir(run, { recursive: true });
    await writeFile(path.join(run, "a.jsonl"), '{"archive_path": "turn-2.fs.zip"}\n');
    for (const name of ["a.fs.zip", "turn-2.fs.zip", "other.fs.zip"]) await writeFile(path.join(run, name), "zip");
    const result = await buildBundle({ source: path.join(run, "a.jsonl"), output: path.join(dir, "single.html"), webDir: web });
    expect([...result.files].sort()).toEqual(["a.fs.zip", "a.jsonl", "turn-2.fs.zip"]);
  });

  it("refuses a missing input, a directory without session files, a run over the size limit and a missing build", async () => {
    await expect(buildBundle({ source: path.join(dir, "nope"), output: path.join(dir, "x.html"), webDir: web })).rejects.toThrow(BundleError);
    await expect(buildBundle({ source: web, output: path.join(dir, "x.html"), webDir: web })).rejects.toThrow(/No session file/);
    await expect(buildBundle({ source: winkFixture("fszip-pr633"), output: path.join(dir, "x.html"), webDir: web, maxBytes: 1000 })).rejects.toThrow(/larger than 1000 bytes/);
    await expect(buildBundle({ source: winkFixture("fszip-pr633"), output: path.join(dir, "x.html"), webDir: path.join(dir, "no-build") })).rejects.toThrow(/standalone web build is missing/);
  });

  it("refuses a folder whose runs are all in subfolders, naming it and saying to use -r (a page of its index.json opened on nothing)", async () => {
    const error = await buildBundle({ source: WINK_BUNDLE_FIXTURES, output: path.join(dir, "flat.html"), webDir: web }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BundleError);
    expect(String(error)).toContain(`No loadable session file or WINK debug bundle at the top of ${WINK_BUNDLE_FIXTURES} (index.json: no snapshot line)`);
    expect(String(error)).toMatch(/its subfolders \(01-small-success, 02-failed-run, 03-long-run, …\) hold 8 session files or debug bundles: run it again with -r \(--recursive\)/);
    // Nothing at all at the top: the same hint.
    const nested = path.join(dir, "nested");
    await mkdir(path.join(nested, "request-1"), { recursive: true });
    await writeFile(path.join(nested, "request-1", "a.jsonl"), "{}\n");
    await expect(buildBundle({ source: nested, output: path.join(dir, "nested.html"), webDir: web })).rejects.toThrow(/No session file \(.jsonl or .json\) or WINK debug bundle in .*nested; its subfolders \(request-1\) hold 1 session file or debug bundle: run it again with -r/);
    const recursive = await buildBundle({ source: WINK_BUNDLE_FIXTURES, output: path.join(dir, "recursive.html"), webDir: web, recursive: true });
    expect(recursive.files.filter((file) => file.endsWith(".zip"))).toHaveLength(8);
  });

  it("parses its command line", async () => {
    const lines: string[] = [];
    expect(await bundleMain(["--help"], (text) => lines.push(text))).toBe(0);
    expect(lines.join("")).toContain("wink-debug bundle DIR|FILE -o run.html");
    await expect(bundleMain([winkFixture("fszip-pr633")])).rejects.toThrow(/-o run.html is required/);
    await expect(bundleMain([winkFixture("fszip-pr633"), "-o", "x.html", "--max-size", "-1"])).rejects.toThrow(/--max-size/);
  });
});
