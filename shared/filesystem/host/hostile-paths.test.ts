/**
 * fixtures/security/hostile-paths.jsonl against every path-taking method of
 * HostFilesystem. For every path and method: the error (if any) is one of ours with a code,
 * never a raw Node error; nothing outside the root changes; no canary appears. "reject"
 * paths fail everywhere (exists → false); "inside" paths land on their target; "literal"
 * paths are a plain name inside the root; "policy" paths either fail or stay inside.
 */
import * as fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WinkError } from "../../errors.js";
import { HostFilesystem } from "./host-filesystem.js";
import { SECURITY_DIR, findCanaries, makeTempDir, treeHash, writeTree } from "./host.test-support.js";

interface HostilePath {
  readonly path: string;
  readonly expect: "reject" | "policy" | "inside" | "literal";
  readonly why: string;
  readonly target?: string;
}

const cases = fs
  .readFileSync(path.join(SECURITY_DIR, "hostile-paths.jsonl"), "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => JSON.parse(line) as HostilePath);

type Method = (fsys: HostFilesystem, p: string) => Promise<unknown>;
const READS: Record<string, Method> = {
  read: (f, p) => f.read(p),
  readBytes: (f, p) => f.readBytes(p),
  stat: (f, p) => f.stat(p),
  list: (f, p) => f.list(p),
  glob: (f, p) => f.glob("*", { path: p }),
  grep: (f, p) => f.grep("x", { path: p }),
  openRead: (f, p) => f.openRead(p).then((r) => r.close()),
  openText: (f, p) => f.openText(p).then((r) => r.close()),
};
const WRITES: Record<string, Method> = {
  write: (f, p) => f.write(p, "x"),
  writeBytes: (f, p) => f.writeBytes(p, new Uint8Array([1])),
  appendWrite: (f, p) => f.write(p, "x", { mode: "append" }),
  openWrite: (f, p) => f.openWrite(p).then((w) => w.write("x").then(() => w.close())),
  mkdir: (f, p) => f.mkdir(p),
  delete: (f, p) => f.delete(p, { recursive: true }),
};

const cleanup: string[] = [];
let base: string;
let root: string;
let outsideHash: string;

beforeAll(async () => {
  base = await makeTempDir("wink-hostile-");
  cleanup.push(base);
  root = path.join(base, "ws");
  await writeTree(base, { "ws/seed.txt": "seed", "ws-evil/x": "OUTSIDE-SECRET", "outside/secret.txt": "OUTSIDE-SECRET" });
  outsideHash = await treeHash(path.join(base, "ws-evil"));
});

afterAll(async () => {
  for (const dir of cleanup) await fs.promises.rm(dir, { recursive: true, force: true });
});

async function attempt(method: Method, fsys: HostFilesystem, p: string): Promise<{ ok: boolean; code: string | null; error: unknown }> {
  try {
    await method(fsys, p);
    return { ok: true, code: null, error: null };
  } catch (error) {
    return { ok: false, code: error instanceof WinkError ? error.code : null, error };
  }
}

/** Every file and directory below the root, relative. */
function inventory(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel === "" ? entry.name : `${rel}/${entry.name}`;
      out.push(child);
      if (entry.isDirectory()) walk(child);
    }
  };
  walk("");
  return out.sort();
}

describe("hostile-paths.jsonl", () => {
  it(`covers ${cases.length} paths`, () => {
    expect(cases.length).toBeGreaterThan(60);
  });

  for (const [index, item] of cases.entries()) {
    const label = `#${index} ${JSON.stringify(item.path).slice(0, 60)} (${item.expect}: ${item.why.slice(0, 50)})`;
    it(label, async () => {
      // Protocol limits raised to the OS ones, so the driver sees 255-byte names too.
      const fsys = new HostFilesystem({ root, stateDir: path.join(base, "state"), limits: { maxSegmentLength: 255, maxPathDepth: 4096 } });
      const before = inventory(root);
      const results: Record<string, { ok: boolean; code: string | null; error: unknown }> = {};
      let created: string[] = [];
      for (const [name, method] of Object.entries({ ...READS, ...WRITES })) {
        const result = await attempt(method, fsys, item.path);
        results[name] = result;
        if (!result.ok) expect(result.code, `${name}: ${String(result.error)}`).not.toBeNull();
        if (name === "write") created = inventory(root).filter((p) => !before.includes(p));
      }
      const exists = await fsys.exists(item.path);
      // Pinned deviations from the corpus, both decided by the path rules (paths.ts) for every backend:
      // "" names the root (conformance 3.14), and a leading "/" is root-relative, so "/dev/zero"
      // names <root>/dev/zero and never the host's file.
      const rootRelative = item.path.startsWith("/") && !item.path.split("/").includes("..");
      const isRoot = item.path === "";

      if (isRoot) {
        expect(results.read?.code).toBe("EISDIR");
        expect(results.write?.code).toBe("EINVAL");
        expect(results.delete?.code).toBe("EACCES");
      } else if (item.expect === "reject" && rootRelative) {
        for (const name of Object.keys(READS)) if (!results[name]?.ok) expect(results[name]?.code, name).toBe("ENOENT");
        for (const p of created) expect(item.path.startsWith(`/${p.split("/")[0] as string}`)).toBe(true);
      } else if (item.expect === "reject") {
        for (const [name, result] of Object.entries(results)) {
          // A missing base directory is "no matches" for glob and grep, by protocol; for the
          // others the path itself must be refused.
          if ((name === "glob" || name === "grep") && result.ok) continue;
          expect(result.ok, `${name} should reject`).toBe(false);
          expect(["EACCES", "EINVAL"], `${name}: ${String(result.error)}`).toContain(result.code);
        }
        expect(exists).toBe(false);
        expect(created).toEqual([]);
      }
      if (item.expect === "inside" && item.target !== undefined) {
        expect(results.write?.ok, String(results.write?.error)).toBe(true);
        expect(created).toContain(item.target);
      }
      if (item.expect === "literal" && item.path.split("/").includes("..")) {
        // ".." is resolved lexically by the path rules ("**/.." is the root): never a glob, never above the root.
        expect(results.write?.code).toBe("EINVAL");
        expect(created).toEqual([]);
      } else if (item.expect === "literal") {
        // Written under exactly its own name inside the root: nothing decoded, expanded or split.
        expect(results.write?.ok, String(results.write?.error)).toBe(true);
        expect(created).toContain(item.path);
      }
      for (const p of created) {
        expect(path.resolve(root, p).startsWith(`${root}${path.sep}`)).toBe(true);
        fs.rmSync(path.join(root, p.split("/")[0] as string), { recursive: true, force: true });
      }
      expect(fs.readFileSync(path.join(root, "seed.txt"), "utf8")).toBe("seed");
      expect(await treeHash(path.join(base, "ws-evil"))).toBe(outsideHash);
      expect(fs.readdirSync(path.join(base, "outside"))).toEqual(["secret.txt"]);
      expect(findCanaries(base)).toEqual([]);
    });
  }

  it("pins the policy outcomes (documented behaviour)", async () => {
    const fsys = new HostFilesystem({ root, stateDir: path.join(base, "state") });
    // "/etc/passwd" is root-relative: it names <root>/etc/passwd, never the host's.
    expect((await attempt(READS.read as Method, fsys, "/etc/passwd")).code).toBe("ENOENT");
    // Backslashes, control characters and bidi overrides are refused.
    for (const p of ["..\\x", "x\n.txt", "x\u007f", "invoice\u202etxt.exe"]) expect((await attempt(WRITES.write as Method, fsys, p)).code, p).toBe("EINVAL");
    // ".git" components are refused for writes in any letter case.
    for (const p of [".git/config", ".GIT/config", "sub/.git/HEAD"]) expect((await attempt(WRITES.write as Method, fsys, p)).code, p).toBe("EACCES");
    // The root itself: listable, not writable or deletable.
    expect((await attempt(READS.list as Method, fsys, "."))).toMatchObject({ ok: true });
    expect((await attempt(WRITES.delete as Method, fsys, "."))).toMatchObject({ code: "EACCES" });
    expect(String((await attempt(WRITES.delete as Method, fsys, ".")).error)).toMatch(/Cannot delete root/);
    expect((await attempt(WRITES.write as Method, fsys, "."))).toMatchObject({ code: "EINVAL" });
  });
});
