/**
 * The shell tool of a sandbox, called the way an agent calls it: raw parameters in,
 * `{message, value, success}` out, never a throw.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolDefinition } from "./types.js";
import { PodmanSandbox } from "../workspace/podman-sandbox.js";
import type { ShellValue } from "./shell-tool.js";

let sandbox: PodmanSandbox;
let tool: ToolDefinition<ShellValue>;
const context = { filesystem: null };

beforeAll(async () => {
  sandbox = await PodmanSandbox.create({ shellTool: { maxOutputBytes: 2048, defaultTimeoutSeconds: 5 }, filesystem: { durable: false } });
  tool = sandbox.shellTool;
}, 120_000);

afterAll(async () => {
  await sandbox?.close();
});

describe("shell tool", { timeout: 60_000 }, () => {
  it("describes itself for an LLM tool definition", () => {
    expect(tool.name).toBe("shell_execute");
    expect(tool.parameters.required).toEqual(["command"]);
    expect(tool.mutates).toBe(true);
    expect(tool.description).toMatch(/2048 bytes/);
  });

  it("runs a command in the workspace and reports its output", async () => {
    await sandbox.filesystem.write("src/a.txt", "alpha\n");
    const result = await tool.handler({ command: "cat src/a.txt; pwd; echo to-stderr >&2" }, context);
    expect(result.success).toBe(true);
    expect(result.value).toMatchObject({ exit_code: 0, stdout: "alpha\n/workspace\n", stderr: "to-stderr\n", timed_out: false, cwd: "/workspace" });
    expect(result.message).toMatch(/^Command succeeded \(exit code 0\)\.\nstdout:\nalpha\n\/workspace\n\nstderr:\nto-stderr\n$/);
  });

  it("reports a non-zero exit as a failed call with the output", async () => {
    const result = await tool.handler({ command: "echo nope; exit 3" }, context);
    expect(result.success).toBe(false);
    expect(result.value?.exit_code).toBe(3);
    expect(result.message).toMatch(/^Command failed with exit code 3\.\nstdout:\nnope\n\nstderr: \(empty\)$/);
  });

  it("kills a command at its deadline and says so", async () => {
    // The deadline counts from the start of `podman exec`, which alone took over 1 s on this
    // 2-core machine under load: 5 s lets the command run before it is killed.
    const started = Date.now();
    const result = await tool.handler({ command: "echo begun; sleep 60", timeout_seconds: 5 }, context);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(result.success).toBe(false);
    expect(result.value).toMatchObject({ exit_code: 124, timed_out: true, stdout: "begun\n" });
    expect(result.message).toMatch(/timed out after 5 s and was killed \(exit code 124\)/);
  });

  it("truncates long output and tells how much there was", async () => {
    const result = await tool.handler({ command: "yes line | head -n 100000" }, context);
    expect(result.success).toBe(true);
    expect(result.value?.stdout.length).toBe(2048);
    expect(result.value?.stdout_truncated).toBe(true);
    expect(result.value?.stdout_bytes).toBe(500_000);
    expect(result.message).toMatch(/\[stdout truncated: showing the first 2048 of 500000 bytes\]/);
  });

  it("honours cwd inside the workspace, stdin, and refuses escapes", async () => {
    await sandbox.filesystem.mkdir("sub/dir");
    const inDir = await tool.handler({ command: "pwd; cat", cwd: "/workspace/sub/dir", stdin: "piped $(id)" }, context);
    expect(inDir.value?.stdout).toBe("/workspace/sub/dir\npiped $(id)");
    const relative = await tool.handler({ command: "pwd", cwd: "sub" }, context);
    expect(relative.value?.stdout).toBe("/workspace/sub\n");
    const escape = await tool.handler({ command: "pwd", cwd: "../etc" }, context);
    expect(escape.success).toBe(false);
    expect(escape.message).toMatch(/Invalid cwd "..\/etc".*escapes root/);
  });

  it("turns bad parameters into failed results", async () => {
    expect((await tool.handler({}, context)).message).toMatch(/Missing required parameter "command"/);
    expect((await tool.handler({ command: "true", shell: "bash" }, context)).message).toMatch(/Unknown parameter "shell"/);
    expect((await tool.handler({ command: 42 }, context)).message).toMatch(/must be a string/);
    expect((await tool.handler({ command: "true", timeout_seconds: 0 }, context)).message).toMatch(/at least 1/);
    expect((await tool.handler({ command: "   " }, context)).message).toMatch(/must not be empty/);
    expect((await tool.handler("not an object", context)).success).toBe(false);
  });

  it("sees what the filesystem writes, and the filesystem sees what commands write", async () => {
    await sandbox.filesystem.write("/workspace/shared/from-fs.txt", "written by the filesystem");
    const result = await tool.handler({ command: "cat shared/from-fs.txt && printf 'made by a command' > shared/from-shell.txt" }, context);
    expect(result.value?.stdout).toBe("written by the filesystem");
    expect((await sandbox.filesystem.read("shared/from-shell.txt")).content).toBe("made by a command");
  });
});
