/**
 * A real sandbox container: its safe defaults, and commands run in it with argv only, a
 * deadline that kills the whole process group, and bounded output.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PodmanContainer } from "./container.js";

let container: PodmanContainer;

beforeAll(async () => {
  container = await PodmanContainer.create({ memoryBytes: 256 * 1024 * 1024, pidsLimit: 64 });
}, 120_000);

afterAll(async () => {
  await container?.remove();
});

async function run(script: string): Promise<string> {
  const result = await container.exec(["/bin/sh", "-c", script]);
  expect(result.exitCode, result.stderr.toString()).toBe(0);
  return result.stdout.toString();
}

describe("PodmanContainer", { timeout: 60_000 }, () => {
  it("runs with no network, no capabilities, no new privileges and resource limits", async () => {
    const status = await run("cat /proc/self/status");
    expect(status).toMatch(/^CapEff:\s+0000000000000000$/m);
    expect(status).toMatch(/^CapBnd:\s+0000000000000000$/m);
    expect(status).toMatch(/^NoNewPrivs:\s+1$/m);
    // Only the loopback interface exists.
    expect((await run("cat /proc/net/dev")).split("\n").filter((l) => l.includes(":")).map((l) => l.split(":")[0]?.trim())).toEqual(["lo"]);
    const limits = await run("cat /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/pids/pids.max 2>/dev/null || cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/pids.max");
    expect(limits.split("\n").slice(0, 2)).toEqual([String(256 * 1024 * 1024), "64"]);
  });

  it("has a read-only root with writable /workspace and /tmp", async () => {
    const denied = await container.exec(["/bin/sh", "-c", "echo x > /etc/evil"]);
    expect(denied.exitCode).not.toBe(0);
    expect(denied.stderr.toString()).toMatch(/Read-only file system/);
    expect(await run("echo ok > /workspace/w && echo ok > /tmp/t && cat /workspace/w /tmp/t && pwd")).toBe("ok\nok\n/workspace\n");
  });

  it("passes argv through literally: no shell ever sees the arguments", async () => {
    const hostile = ["$(id)", "`id`", "a b", "*", "-n", "'", '"', "\n", ";ls", "|", "&&", "$HOME", "--", "", "é🎉"];
    const result = await container.exec(["printf", "[%s]", ...hostile]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout.toString()).toBe(hostile.map((arg) => `[${arg}]`).join(""));
    await expect(container.exec(["echo", "nul\u0000byte"])).rejects.toMatchObject({ code: "EINVAL" });
    await expect(container.exec([])).rejects.toMatchObject({ code: "EINVAL" });
    await expect(container.exec(["pwd"], { env: { "BAD NAME": "x" } })).rejects.toMatchObject({ code: "EINVAL" });
    await expect(container.exec(["pwd"], { cwd: "relative" })).rejects.toMatchObject({ code: "EINVAL" });
  });

  it("reports exit codes, separates stdout from stderr and feeds binary stdin", async () => {
    const failed = await container.exec(["/bin/sh", "-c", "echo out; echo err >&2; exit 7"]);
    expect([failed.exitCode, failed.stdout.toString(), failed.stderr.toString(), failed.timedOut]).toEqual([7, "out\n", "err\n", false]);
    const missing = await container.exec(["no-such-command"]);
    expect(missing.exitCode).toBe(127);
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    const echoed = await container.exec(["cat"], { stdin: bytes });
    expect([...echoed.stdout]).toEqual([...bytes]);
    const env = await container.exec(["/bin/sh", "-c", 'printf "%s" "$GREETING"; pwd'], { env: { GREETING: "hi $(id)" }, cwd: "/tmp" });
    expect(env.stdout.toString()).toBe("hi $(id)/tmp\n");
  });

  it("kills the whole process group on timeout and leaves nothing running", async () => {
    const started = Date.now();
    const result = await container.exec(["/bin/sh", "-c", "sleep 300 & sleep 301 & echo started; wait"], { timeoutMs: 1_000 });
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBe(124);
    expect(result.stdout.toString()).toBe("started\n");
    expect(Date.now() - started).toBeLessThan(10_000);
    // PID 1 reaps the killed children: no sleeper, no zombie.
    const ps = await run("ps -o stat,args");
    expect(ps).not.toMatch(/sleep 30[01]/);
    expect(ps.split("\n").filter((line) => line.startsWith("Z"))).toEqual([]);
  });

  it("kills a command whose deadline passed before it even started", async () => {
    // 1 ms is over before `podman exec` has started anything: the command still must not run on.
    const result = await container.exec(["/bin/sh", "-c", "echo started; sleep 299"], { timeoutMs: 1 });
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBe(124);
    // A command that started after its client was killed would show up a moment later.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await run("ps -o args")).not.toMatch(/sleep 299/);
  });

  it("caps output, counts what was dropped and says so", async () => {
    const result = await container.exec(["/bin/sh", "-c", "head -c 300000 /dev/zero | tr '\\0' a; head -c 5000 /dev/zero | tr '\\0' b >&2"], { maxOutputBytes: 1000 });
    expect(result.exitCode).toBe(0);
    expect(result.stdout.length).toBe(1000);
    expect(result.stdoutBytes).toBe(300_000);
    expect(result.stdoutTruncated).toBe(true);
    expect(result.stderr.toString()).toBe("b".repeat(1000));
    expect(result.stderrTruncated).toBe(true);
    const small = await container.exec(["echo", "fits"], { maxOutputBytes: 1000 });
    expect([small.stdoutTruncated, small.stdoutBytes]).toEqual([false, 5]);
  });

  it("stops a command when its signal aborts", async () => {
    const controller = new AbortController();
    const running = container.exec(["sleep", "120"], { signal: controller.signal });
    setTimeout(() => controller.abort(), 500);
    const result = await running;
    expect(result.timedOut).toBe(true);
    expect(await run("ps -o args")).not.toMatch(/sleep 120/);
  });

  it("refuses podman commit on a --rootfs container, saying why", async () => {
    await expect(container.commit("localhost/wink-test:never")).rejects.toMatchObject({ code: "E_SNAPSHOT_CREATE", message: expect.stringMatching(/--rootfs/) });
  });

  it("removes itself idempotently and is gone from podman", async () => {
    const short = await PodmanContainer.create();
    expect(await short.running()).toBe(true);
    await short.remove();
    await short.remove();
    expect(await short.running()).toBe(false);
    const listed = await short.podman.run(["ps", "--all", "--filter", `name=^${short.name}$`, "--format", "{{.ID}}"]);
    expect(listed.stdout.toString().trim()).toBe("");
  });
});
