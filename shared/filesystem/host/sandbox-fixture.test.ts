/**
 * Every row of fixtures/security/README.md (a copy of the team corpus)'s "sandbox-fixture.sh" table, against the
 * whole HostFilesystem stack, plus the symlink-swap races (the fixture's RACE=1 racer, and
 * a racer that swaps a real directory for a symlink — with a naive reader as a control that
 * proves the race is real).
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HostFilesystem } from "./host-filesystem.js";
import { buildSandboxFixture, copySecurityFile, findCanaries, makeTempDir } from "./host.test-support.js";

const SECRET = "OUTSIDE-SECRET";
const cleanup: string[] = [];
const tmpCanariesBefore = new Set(findTmpCanaries());

function findTmpCanaries(): string[] {
  return fs.readdirSync("/tmp").filter((name) => name.includes("wink-canary"));
}

afterAll(async () => {
  for (const dir of cleanup) await fs.promises.rm(dir, { recursive: true, force: true });
});

async function outcome(promise: Promise<unknown>): Promise<{ code: string; text: string }> {
  try {
    const value = await promise;
    return { code: "ok", text: JSON.stringify(value, (_k, v: unknown) => (v instanceof Uint8Array ? new TextDecoder().decode(v) : v)) ?? "" };
  } catch (error) {
    return { code: (error as { code?: string }).code ?? "THROWN", text: String(error) };
  }
}

describe("sandbox-fixture.sh rows", () => {
  let dir: string;
  let root: string;
  let outside: string;
  let fs1: HostFilesystem;

  beforeAll(async () => {
    dir = await makeTempDir("wink-sandbox-");
    cleanup.push(dir);
    ({ root, outside } = await buildSandboxFixture(dir));
    fs1 = new HostFilesystem({ root, stateDir: path.join(dir, "state") });
  });

  it("escaping reads are rejected through every read API and never return OUTSIDE-SECRET", async () => {
    const paths = ["abs-file-out", "rel-file-out", "abs-dir-out/secret.txt", "sub/rel-dir-out/secret.txt", "chain1/secret.txt", "proc-root/etc/passwd", "../root-evil/secret.txt"];
    for (const p of paths) {
      for (const [api, call] of [
        ["read", () => fs1.read(p)],
        ["readBytes", () => fs1.readBytes(p)],
        ["openRead", () => fs1.openRead(p).then((r) => r.read())],
        ["openText", () => fs1.openText(p).then((r) => r.read())],
      ] as const) {
        const result = await outcome(call());
        expect(result.code, `${api}(${p}): ${result.text}`).toBe("EACCES");
        expect(result.text).not.toContain(SECRET);
      }
      if (p.includes("/")) {
        // Through a link (or above the root): nothing is reachable there.
        expect((await outcome(fs1.stat(p))).code, `stat(${p})`).toBe("EACCES");
        expect(await fs1.exists(p), p).toBe(false);
      } else {
        // The link itself exists and is reported as a link (lstat), never as what it points to.
        expect(await fs1.stat(p)).toMatchObject({ kind: "symlink", isFile: false, sizeBytes: 0 });
      }
    }
    expect((await outcome(fs1.read("../root-evil/secret.txt"))).text).toMatch(/escapes root/);
  });

  it("policy: in-root links are refused too (no symlink is ever followed)", async () => {
    for (const p of ["rel-inside", "abs-inside/file.txt"]) {
      const result = await outcome(fs1.read(p));
      expect(result.code, p).toBe("EACCES");
      expect(result.text).toMatch(/symbolic link/);
    }
    expect((await fs1.read("sub/file.txt")).content).toBe("inside\n");
  });

  it("a symlink loop is a clean ELOOP; FIFO and /dev/zero are refused without blocking", async () => {
    expect((await outcome(fs1.read("loop"))).code).toBe("ELOOP");
    const started = Date.now();
    for (const p of ["fifo", "zero"]) {
      const result = await outcome(fs1.readBytes(p));
      expect(result.code, p).toBe("EACCES");
      expect((await outcome(fs1.openRead(p))).code).toBe("EACCES");
    }
    expect((await outcome(fs1.read("fifo"))).text).toMatch(/not a regular file/);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("writing through the dangling link creates no canary; the hard link is replaced, not written through", async () => {
    for (const mode of ["overwrite", "append", "create"] as const) {
      const result = await outcome(fs1.write("dangling-out", "pwned", { mode }));
      expect(["EACCES", "EEXIST"], `${mode}: ${result.text}`).toContain(result.code);
      expect((await outcome(fs1.openWrite("dangling-out", { mode }).then((w) => w.write("x").then(() => w.close())))).code).not.toBe("ok");
    }
    expect(fs.existsSync(path.join(dir, "wink-canary-dangling"))).toBe(false);

    await fs1.write("hardlink-out", "replaced");
    expect(fs.readFileSync(path.join(outside, "secret.txt"), "utf8")).toBe(`${SECRET}\n`);
    expect((await fs1.read("hardlink-out")).content).toBe("replaced");
  });

  it("listing, glob, grep and export never descend through symlinked directories", async () => {
    const rootEntries = await fs1.list();
    expect(rootEntries.find((e) => e.name === "abs-dir-out")).toMatchObject({ kind: "symlink", isDirectory: false, isFile: false });
    expect((await outcome(fs1.list("abs-dir-out"))).code).toBe("EACCES");
    const globbed = (await fs1.glob("*")).map((m) => m.path);
    expect(globbed.some((p) => /^(abs-dir-out|abs-inside|chain1|chain2|proc-root)\//.test(p) || p.startsWith("sub/rel-dir-out/"))).toBe(false);
    expect(globbed).toContain("sub/file.txt");
    const matches = await fs1.grep("OUTSIDE|root:");
    // The only hit is the hard link (same inode as the outside file, a regular file in the root).
    expect(matches.map((m) => m.path).filter((p) => p !== "hardlink-out")).toEqual([]);
  });

  it("deleting the absolute dir link recursively removes only the link", async () => {
    await fs1.delete("abs-dir-out", { recursive: true });
    expect(fs.existsSync(path.join(root, "abs-dir-out"))).toBe(false);
    expect(fs.readFileSync(path.join(outside, "dir/secret.txt"), "utf8")).toBe(`${SECRET}\n`);
    await fs1.delete("sub/rel-dir-out", { recursive: true });
    expect(fs.readdirSync(path.join(outside, "dir"))).toEqual(["secret.txt"]);
  });

  it("no canary anywhere", () => {
    expect(findCanaries(dir)).toEqual([]);
    expect(findTmpCanaries().filter((name) => !tmpCanariesBefore.has(name))).toEqual([]);
  });
});

/** Wait until `check` holds (polling), or fail after `ms`. */
async function waitFor(check: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out waiting for the racer");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function readLoop(fsys: HostFilesystem, target: string, ms: number): Promise<{ ok: number; refused: number; escapes: number }> {
  const counts = { ok: 0, refused: 0, escapes: 0 };
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try {
      const { content } = await fsys.read(target);
      if (content.includes(SECRET)) counts.escapes++;
      else counts.ok++;
    } catch {
      counts.refused++;
    }
  }
  return counts;
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.on("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

describe("symlink-swap races", () => {
  it("RACE=1 racer of sandbox-fixture.sh: reads of sub/deeper/x for 10 s return OUTSIDE-SECRET 0 times", async () => {
    const dir = await makeTempDir("wink-race-");
    cleanup.push(dir);
    const script = await copySecurityFile("sandbox-fixture.sh", await makeTempDir("wink-race-script-"));
    cleanup.push(path.dirname(script));
    const racer = spawn("bash", [script, dir], { env: { ...process.env, RACE: "1", RACE_SECONDS: "14" }, stdio: "ignore" });
    try {
      await waitFor(() => fs.existsSync(path.join(dir, "root/sub/.deeper.tmp")) || fs.existsSync(path.join(dir, "root/sub/deeper.real/x")), 10_000);
      const fsys = new HostFilesystem({ root: path.join(dir, "root"), stateDir: path.join(dir, "state") });
      const counts = await readLoop(fsys, "sub/deeper/x", 10_000);
      console.log(`fixture racer, 10 s: ${JSON.stringify(counts)}`);
      expect(counts.escapes).toBe(0);
      expect(counts.refused).toBeGreaterThan(100);
      // The racer keeps `sub/deeper` a symlink, which we never follow: every read is refused.
      expect(counts.ok).toBe(0);
      expect((await fsys.read("sub/deeper.real/x")).content).toBe("inside\n");
    } finally {
      await stop(racer);
    }
    expect(findCanaries(dir)).toEqual([]);
  }, 40_000);

  it("a real directory swapped for a symlink mid-walk: 0 escapes for reads and writes, while a naive reader escapes", async () => {
    const dir = await makeTempDir("wink-dirswap-");
    cleanup.push(dir);
    const root = path.join(dir, "root");
    const outside = path.join(dir, "outside");
    fs.mkdirSync(path.join(root, "sub/deeper"), { recursive: true });
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(root, "sub/deeper/x"), "inside\n");
    fs.writeFileSync(path.join(outside, "x"), `${SECRET}\n`);
    const racerCode = [
      "import os, sys, time",
      "sub, out = sys.argv[1], sys.argv[2]",
      "d, away = os.path.join(sub, 'deeper'), os.path.join(sub, 'deeper.away')",
      "end = time.time() + float(sys.argv[3])",
      "while time.time() < end:",
      "    os.rename(d, away); os.symlink(out, d); os.unlink(d); os.rename(away, d)",
    ].join("\n");
    const racer = spawn("python3", ["-c", racerCode, path.join(root, "sub"), outside, "16"], { stdio: "ignore" });
    try {
      const fsys = new HostFilesystem({ root, stateDir: path.join(dir, "state") });
      const reads = await readLoop(fsys, "sub/deeper/x", 5_000);
      let writes = 0;
      const writeEnd = Date.now() + 2_000;
      while (Date.now() < writeEnd) {
        await fsys.write("sub/deeper/w.txt", "written", { createParents: false }).then(() => writes++, () => undefined);
        await fsys.mkdir("sub/deeper/newdir", { parents: false }).catch(() => undefined);
      }
      console.log(`directory-swap racer, 5 s reads: ${JSON.stringify(reads)}, writes that landed: ${writes}`);
      expect(reads.escapes).toBe(0);
      expect(reads.ok).toBeGreaterThan(0);
      expect(reads.refused).toBeGreaterThan(0);
      expect(fs.readdirSync(outside)).toEqual(["x"]);

      // Control: realpath()-then-open() in the same race does read the secret.
      const naive = await copySecurityFile("race-check-naive.js", dir);
      const output = await new Promise<string>((resolve) => {
        const child = spawn(process.execPath, [naive, root], { stdio: ["ignore", "pipe", "ignore"] });
        let text = "";
        child.stdout.on("data", (chunk: Buffer) => (text += chunk.toString()));
        child.on("exit", () => resolve(text));
      });
      const control = JSON.parse(output) as { ESCAPES: number };
      console.log(`naive reader in the same race (5 s): ${output.trim()}`);
      expect(control.ESCAPES).toBeGreaterThan(0);
    } finally {
      await stop(racer);
    }
    expect(findCanaries(dir)).toEqual([]);
  }, 40_000);
});
