/**
 * The ripgrep prefilter must never change grep results: grep restricted to rg's candidates
 * (what the proposed driver hook does) equals the plain shared JS grep, on a tree built to
 * trip it up (binary, invalid UTF-8, BOM, CRLF, hidden, ignored, links, case folding).
 */
import * as fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DriverFilesystem } from "../driver-filesystem.js";
import { HostDriver } from "./host-driver.js";
import { HostFilesystem } from "./host-filesystem.js";
import { makeTempDir, restrictedTo, writeTree } from "./host-test-support.js";
import { literalOfPattern } from "./ripgrep-prefilter.js";

let base: string;
let root: string;

beforeAll(async () => {
  base = await makeTempDir("wink-rg-prefilter-");
  root = path.join(base, "ws");
  await writeTree(root, {
    "a.txt": "hello world\nHELLO again\nnothing\n",
    "crlf.txt": "line one\r\nhello crlf\r\n",
    "bom.txt": "\ufeffhello with bom\n",
    ".hidden/h.txt": "hello hidden\n",
    "node_modules/m.js": "hello ignored-by-default\n",
    ".gitignore": "*.log\n",
    "x.log": "hello in an ignored file\n",
    "kelvin.txt": "\u212a is a kelvin sign; \u017f is a long s\n",
    "dir/deep/d.md": "foo.bar and foo-bar and fooXbar\n",
    "utf8/é.txt": "café hello\n",
  });
  fs.writeFileSync(path.join(root, "binary.bin"), Buffer.from([0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x00, 0x01]));
  fs.writeFileSync(path.join(root, "invalid.txt"), Buffer.from([0x68, 0x65, 0x6c, 0x6c, 0x6f, 0xff, 0x0a]));
  fs.writeFileSync(path.join(root, "utf16.txt"), Buffer.from("\ufeffhello", "utf16le"));
  await writeTree(base, { "outside/o.txt": "hello from outside\n" });
  fs.symlinkSync(path.join(base, "outside"), path.join(root, "link-out"));
});

afterAll(async () => {
  await fs.promises.rm(base, { recursive: true, force: true });
});

describe("literalOfPattern", () => {
  it("accepts plain and escaped literals, refuses regexes and unsafe literals", () => {
    expect(literalOfPattern("hello", false)).toBe("hello");
    expect(literalOfPattern("foo\\.bar", false)).toBe("foo.bar");
    expect(literalOfPattern("a\\(b\\)", false)).toBe("a(b)");
    expect(literalOfPattern("café", false)).toBe("café");
    for (const regex of ["foo.bar", "a+", "^x", "(?i)x", "[ab]", "x|y", "\\d", "\\w+", "a{2}", ""]) expect(literalOfPattern(regex, false), regex).toBeNull();
    expect(literalOfPattern("café", true)).toBeNull();
    expect(literalOfPattern("tab\there", false)).toBeNull();
    expect(literalOfPattern("\ufeffx", false)).toBeNull();
  });
});

describe("grep through the ripgrep prefilter", () => {
  const queries: [string, boolean][] = [
    ["hello", false],
    ["hello", true],
    ["HELLO", false],
    ["k", true],
    ["s", true],
    ["foo\\.bar", false],
    ["foo-bar", false],
    ["café", false],
    ["crlf", false],
    ["outside", false],
    ["absent-literal", false],
    ["foo.bar", false],
  ];
  for (const [pattern, ignoreCase] of queries) {
    it(`gives identical results for ${JSON.stringify(pattern)}${ignoreCase ? " (ignoreCase)" : ""}`, async () => {
      const host = new HostFilesystem({ root, stateDir: path.join(base, "state") });
      const expected = await host.grep(pattern, { ignoreCase });
      const driver = new HostDriver({ root, stateDir: path.join(base, "state") });
      const candidates = await driver.grepCandidates("", { pattern, ignoreCase });
      if (literalOfPattern(pattern, ignoreCase) === null) {
        expect(candidates).toBeNull();
        return;
      }
      expect(candidates).not.toBeNull();
      const accelerated = await new DriverFilesystem(restrictedTo(driver, candidates ?? new Set())).grep(pattern, { ignoreCase });
      expect(accelerated).toEqual(expected);
      for (const match of expected) expect(candidates?.has(match.path)).toBe(true);
      // Scoped searches agree too.
      const scoped = await host.grep(pattern, { ignoreCase, path: "dir" });
      const scopedCandidates = await driver.grepCandidates("dir", { pattern, ignoreCase });
      expect(await new DriverFilesystem(restrictedTo(driver, scopedCandidates ?? new Set())).grep(pattern, { ignoreCase, path: "dir" })).toEqual(scoped);
    });
  }

  it("never names files behind a symlinked directory as candidates", async () => {
    const driver = new HostDriver({ root, stateDir: path.join(base, "state") });
    const candidates = await driver.grepCandidates("", { pattern: "hello", ignoreCase: false });
    expect([...(candidates ?? [])].some((p) => p.startsWith("link-out/"))).toBe(false);
    expect(candidates?.has("x.log")).toBe(true);
    expect(candidates?.has(".hidden/h.txt")).toBe(true);
  });
});
