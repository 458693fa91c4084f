/**
 * The `find` walk gives exactly what the walk in JavaScript gives (same entries, same stat
 * numbers, same trust decisions against an index), and answers null — so the caller walks
 * in JavaScript — whenever `find` fails or is not GNU find.
 */
import { mkdirSync, symlinkSync, utimesSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

import { toBytePath } from "./byte-paths.js";
import { FindWalk } from "./find-walk.js";
import { comparableScan, indexThenChange, hostileTree, TempDirs, writeTree } from "./snapshot.test-support.js";
import { scanAgainstIndex } from "./workspace-scan.js";

const temps = new TempDirs();
afterEach(() => temps.removeAll());

const options = { excludeTopLevelPrefix: ".wink-apply-" };

async function findWalk(rootBytes: string, baseline: Parameters<FindWalk["collect"]>[0]): Promise<ReturnType<typeof scanAgainstIndex> | null> {
  const walk = FindWalk.start(rootBytes, options);
  expect(walk).not.toBeNull();
  return (walk as FindWalk).collect(baseline);
}

describe("find walk", () => {
  it("walks exactly like the walk in JavaScript, with and without an index", async () => {
    const root = temps.make("find-walk-");
    hostileTree(root);
    // Sub-millisecond timestamps: the numbers must be Node's own `mtimeMs`, to the last bit.
    utimesSync(path.join(root, "a.txt"), 1_700_000_000.123456, 1_700_000_000.987654);
    const rootBytes = toBytePath(root);
    const plain = scanAgainstIndex(rootBytes, null, options);
    const found = await findWalk(rootBytes, null);
    expect(found).not.toBeNull();
    expect(comparableScan(found as NonNullable<typeof found>)).toEqual(comparableScan(plain));
    expect(plain.others).toEqual(["pipe"]);
    expect([...plain.untrusted.keys()].some((p) => p.includes("\xff\xfe"))).toBe(true);

    const baseline = indexThenChange(root, options);
    const sequential = scanAgainstIndex(rootBytes, baseline, options);
    const viaFind = await findWalk(rootBytes, baseline);
    expect(comparableScan(viaFind as NonNullable<typeof viaFind>)).toEqual(comparableScan(sequential));
    expect(viaFind?.untrusted.has("a.txt")).toBe(true);
    expect(viaFind?.untrusted.has("tool.sh")).toBe(true);
    expect(viaFind?.untrusted.has("secret.txt")).toBe(false);
    expect(viaFind?.missing).toContain("deep/er/y.txt");
  });

  it("dates the walk from its start, before `find` ran", async () => {
    const root = temps.make("find-walk-start-");
    writeTree(root, { "a.txt": "a" });
    const before = Date.now();
    const walk = FindWalk.start(toBytePath(root), options) as FindWalk;
    await new Promise((resolve) => setTimeout(resolve, 50));
    const scan = await walk.collect(null);
    expect(scan?.startedAtMs).toBeGreaterThanOrEqual(before);
    expect(scan?.startedAtMs).toBeLessThan(before + 40);
  });

  it("follows a symlinked root, and no symlink below it", async () => {
    const parent = temps.make("find-walk-link-");
    writeTree(path.join(parent, "real"), { "in/a.txt": "a", "out-link": { symlink: "/etc" } });
    symlinkSync(path.join(parent, "real"), path.join(parent, "root"));
    const rootBytes = toBytePath(path.join(parent, "root"));
    const found = await findWalk(rootBytes, null);
    expect(comparableScan(found as NonNullable<typeof found>)).toEqual(comparableScan(scanAgainstIndex(rootBytes, null, options)));
    expect(found?.untrusted.get("out-link")?.kind).toBe("symlink");
    expect(found?.leafCount).toBe(2);
  });

  it("answers null when find fails (the caller then walks, and reports, in JavaScript), and is used again after", async () => {
    const gone = path.join(temps.make("find-walk-gone-"), "missing");
    expect(await (FindWalk.start(toBytePath(gone), options) as FindWalk).collect(null)).toBeNull();
    const root = temps.make("find-walk-after-");
    mkdirSync(path.join(root, "d"));
    expect((await findWalk(toBytePath(root), null))?.dirs.has("d")).toBe(true);
  });

  // Last: a find without -printf is remembered for the rest of the process.
  it("answers null with a find that has no -printf (BusyBox), then is not started again", async () => {
    const bin = temps.make("find-walk-busybox-");
    symlinkSync("/bin/busybox", path.join(bin, "find"));
    const root = temps.make("find-walk-bb-");
    writeTree(root, { "a.txt": "a" });
    const saved = process.env.PATH;
    process.env.PATH = `${bin}:${saved ?? ""}`;
    try {
      expect(await (FindWalk.start(toBytePath(root), options) as FindWalk).collect(null)).toBeNull();
    } finally {
      process.env.PATH = saved;
    }
    expect(FindWalk.start(toBytePath(root), options)).toBeNull();
  });
});
