import { readFileSync } from "node:fs";
import { beforeEach, describe, expect, it } from "vitest";
import { securityFixture } from "../../fixtures/paths.js";
import { InMemoryFilesystem } from "../filesystem/memory/in-memory-filesystem.js";
import { dumpsPython } from "../session/python-json-dumps.js";
import { parsePythonJson } from "../session/python-json-parse.js";
import { FILESYSTEM_TOOLS, editFileTool, globTool, grepTool, lsTool, readFileTool, rmTool, writeFileTool, type ToolContext, type ToolDefinition } from "./index.js";

let fs: InMemoryFilesystem;
let context: ToolContext;

beforeEach(async () => {
  fs = new InMemoryFilesystem();
  context = { filesystem: fs };
  await fs.write("src/app.ts", "const a = 1;\nconst b = 2;\nexport { a, b };\n");
  await fs.write("src/util/strings.ts", "export const hello = 'hello';\n");
  await fs.write("README.md", "# Demo\n");
});

describe("tool definitions", () => {
  it("exposes seven tools with JSON schemas a model can use", () => {
    expect(FILESYSTEM_TOOLS.map((t) => t.name)).toEqual(["ls", "read_file", "write_file", "edit_file", "glob", "grep", "rm"]);
    for (const tool of FILESYSTEM_TOOLS) {
      expect(tool.parameters.type).toBe("object");
      expect(tool.parameters.additionalProperties).toBe(false);
      for (const required of tool.parameters.required) expect(tool.parameters.properties).toHaveProperty(required);
      expect(JSON.parse(JSON.stringify(tool.parameters))).toEqual(tool.parameters);
    }
    expect(FILESYSTEM_TOOLS.filter((t) => t.mutates).map((t) => t.name)).toEqual(["write_file", "edit_file", "rm"]);
  });

  it("turns bad input and a missing filesystem into failed results, never throws", async () => {
    for (const tool of FILESYSTEM_TOOLS) {
      for (const params of [null, 42, "x", [], { unknown: 1 }, { path: 5, file_path: 5, pattern: 5 }]) {
        const result = await tool.handler(params, context);
        expect(result.success, `${tool.name} ${JSON.stringify(params)}`).toBe(false);
        expect(result.value).toBeNull();
        expect(result.message.length).toBeGreaterThan(5);
      }
      const none = await tool.handler({}, { filesystem: null });
      expect(none).toEqual({ message: "No filesystem available in this context.", value: null, success: false });
    }
    expect((await readFileTool.handler({ file_path: "README.md", extra: true }, context)).message).toMatch(/Unknown parameter "extra"/);
    expect((await readFileTool.handler({}, context)).message).toMatch(/Missing required parameter "file_path"/);
  });

  it("checks each parameter against its schema with a message naming it, and fills in defaults", async () => {
    const message = async (tool: ToolDefinition, params: unknown) => (await tool.handler(params, context)).message;
    expect(await message(readFileTool, { file_path: "README.md", offset: 1.5 })).toBe('read_file: Parameter "offset" must be an integer.');
    expect(await message(readFileTool, { file_path: "README.md", offset: -1 })).toBe('read_file: Parameter "offset" must be at least 0.');
    expect(await message(readFileTool, { file_path: "README.md", limit: 2001 })).toBe('read_file: Parameter "limit" must be at most 2000.');
    expect(await message(readFileTool, { file_path: "" })).toBe('read_file: Parameter "file_path" must not be empty.');
    expect(await message(writeFileTool, { file_path: "a.txt", content: "x", mode: "replace" })).toBe('write_file: Parameter "mode" must be one of: create, overwrite, append.');
    expect(await message(editFileTool, { file_path: "README.md", old_string: "Demo", new_string: "x", replace_all: "yes" })).toBe('edit_file: Parameter "replace_all" must be true or false.');
    // Defaults (and a null taken for "not given"): a whole window from the first line, a new file created.
    const read = await readFileTool.handler({ file_path: "README.md", offset: null }, context);
    expect(read.value).toMatchObject({ offset: 0, limit: 1, total_lines: 1 });
    expect((await writeFileTool.handler({ file_path: "new.txt", content: "x" }, context)).value).toMatchObject({ mode: "create" });
  });
});

describe("ls", () => {
  it("lists directories first with file sizes", async () => {
    const result = await lsTool.handler({}, context);
    expect(result.success).toBe(true);
    expect(result.value?.map((e) => [e.name, e.kind, e.size_bytes])).toEqual([
      ["src", "directory", null],
      ["README.md", "file", 7],
    ]);
    expect(result.message).toBe("Listed 2 entries in the workspace root.");
  });

  it("rejects files and missing paths with actionable messages", async () => {
    expect((await lsTool.handler({ path: "README.md" }, context)).message).toMatch(/is a file.*read_file/);
    expect((await lsTool.handler({ path: "nope" }, context)).message).toMatch(/nope.*Use ls or glob/);
    expect((await lsTool.handler({ path: "../x" }, context)).message).toMatch(/escapes root/);
  });
});

describe("read_file", () => {
  it("returns a numbered window and says how to continue", async () => {
    const result = await readFileTool.handler({ file_path: "src/app.ts", offset: 1, limit: 1 }, context);
    expect(result.success).toBe(true);
    expect(result.value).toEqual({ __type__: "weakincentives.filesystem._types:ReadResult", path: "src/app.ts", content: "   2 | const b = 2;", offset: 1, limit: 1, total_lines: 3, truncated: true });
    expect(result.message).toBe("Read file src/app.ts (lines 2-2 of 3). Call again with offset 2 for more.");
  });

  it("returns an empty window past the end and enforces bounds", async () => {
    const past = await readFileTool.handler({ file_path: "src/app.ts", offset: 10 }, context);
    expect(past.success).toBe(true);
    expect(past.value?.content).toBe("");
    expect((await readFileTool.handler({ file_path: "src/app.ts", limit: 0 }, context)).message).toMatch(/at least 1/);
    expect((await readFileTool.handler({ file_path: "src/app.ts", limit: 2001 }, context)).message).toMatch(/at most 2000/);
    expect((await readFileTool.handler({ file_path: "src/app.ts", offset: -1 }, context)).message).toMatch(/at least 0/);
    expect((await readFileTool.handler({ file_path: "missing.ts" }, context)).success).toBe(false);
    await fs.writeBytes("blob.bin", new Uint8Array([0xff, 0x00]));
    expect((await readFileTool.handler({ file_path: "blob.bin" }, context)).message).toMatch(/binary/);
  });
});

describe("write_file", () => {
  it("creates files and refuses existing targets unless asked", async () => {
    const created = await writeFileTool.handler({ file_path: "notes/todo.md", content: "- ship\n" }, context);
    expect(created).toEqual({ success: true, message: "Created notes/todo.md (7 bytes).", value: { __type__: "weakincentives.filesystem._types:WriteResult", path: "notes/todo.md", bytes_written: 7, mode: "create" } });
    const again = await writeFileTool.handler({ file_path: "notes/todo.md", content: "x" }, context);
    expect(again.success).toBe(false);
    expect(again.message).toMatch(/File exists.*edit_file/);
    expect((await writeFileTool.handler({ file_path: "notes/todo.md", content: "- test\n", mode: "append" }, context)).message).toBe("Appended to notes/todo.md (7 bytes).");
    expect((await fs.read("notes/todo.md")).content).toBe("- ship\n- test\n");
    expect((await writeFileTool.handler({ file_path: "notes/todo.md", content: "new", mode: "overwrite" }, context)).success).toBe(true);
  });

  it("enforces the 48,000-character limit", async () => {
    const result = await writeFileTool.handler({ file_path: "big.txt", content: "x".repeat(48_001) }, context);
    expect(result.success).toBe(false);
    expect(result.message).toMatch(/exceeds maximum length of 48000/);
    expect(await fs.exists("big.txt")).toBe(false);
  });
});

describe("edit_file", () => {
  it("replaces a unique string", async () => {
    const result = await editFileTool.handler({ file_path: "src/app.ts", old_string: "const b = 2;", new_string: "const b = 3;" }, context);
    expect(result.message).toBe("Replaced 1 occurrence in src/app.ts.");
    expect((await fs.read("src/app.ts")).content).toContain("const b = 3;");
  });

  it("explains why it cannot edit", async () => {
    expect((await editFileTool.handler({ file_path: "src/app.ts", old_string: "nope", new_string: "x" }, context)).message).toMatch(/not found.*exact text/);
    const ambiguous = await editFileTool.handler({ file_path: "src/app.ts", old_string: "const", new_string: "let" }, context);
    expect(ambiguous.message).toMatch(/occurs 2 times.*replace_all/);
    expect((await fs.read("src/app.ts")).content).toContain("const a");
    expect((await editFileTool.handler({ file_path: "src/app.ts", old_string: "", new_string: "x" }, context)).message).toMatch(/must not be empty/);
    expect((await editFileTool.handler({ file_path: "src/app.ts", old_string: "a", new_string: "a" }, context)).message).toMatch(/identical/);
    expect((await editFileTool.handler({ file_path: "gone.ts", old_string: "a", new_string: "b" }, context)).success).toBe(false);
    const tooLong = await editFileTool.handler({ file_path: "README.md", old_string: "Demo", new_string: "y".repeat(48_001) }, context);
    expect(tooLong.message).toMatch(/exceeds maximum length/);
    expect((await fs.read("README.md")).content).toBe("# Demo\n");
  });

  it("replaces every occurrence when asked, with $ patterns taken literally", async () => {
    const result = await editFileTool.handler({ file_path: "src/app.ts", old_string: "const", new_string: "let $&", replace_all: true }, context);
    expect(result.value?.replacements).toBe(2);
    expect((await fs.read("src/app.ts")).content).toBe("let $& a = 1;\nlet $& b = 2;\nexport { a, b };\n");
    await editFileTool.handler({ file_path: "README.md", old_string: "Demo", new_string: "$1 $$" }, context);
    expect((await fs.read("README.md")).content).toBe("# $1 $$\n");
  });
});

describe("glob", () => {
  it("finds files and reports no matches", async () => {
    const paths = async (params: Record<string, string>) => (await globTool.handler(params, context)).value?.map((m) => m.path);
    expect((await globTool.handler({ pattern: "**/*.ts" }, context)).value).toEqual([
      { __type__: "weakincentives.filesystem._types:GlobMatch", path: "src/app.ts", is_file: true },
      { __type__: "weakincentives.filesystem._types:GlobMatch", path: "src/util/strings.ts", is_file: true },
    ]);
    // fnmatch, as WINK: "*" crosses "/".
    expect(await paths({ pattern: "*.ts", path: "src" })).toEqual(["src/app.ts", "src/util/strings.ts"]);
    expect(await paths({ pattern: "src/*.ts" })).toEqual(["src/app.ts", "src/util/strings.ts"]);
    expect((await globTool.handler({ pattern: "*.rs" }, context)).message).toBe('No files match "*.rs".');
    expect((await globTool.handler({ pattern: "" }, context)).success).toBe(false);
  });
});

describe("grep", () => {
  it("finds matches, reports none and invalid patterns", async () => {
    const result = await grepTool.handler({ pattern: "const \\w", glob: "**/*.ts" }, context);
    expect(result.value?.map((m) => `${m.path}:${m.line_number}`)).toEqual(["src/app.ts:1", "src/app.ts:2", "src/util/strings.ts:1"]);
    expect(result.value?.[0]).toEqual({ __type__: "weakincentives.filesystem._types:GrepMatch", path: "src/app.ts", line_number: 1, line_content: "const a = 1;", match_start: 0, match_end: 7 });
    expect((await grepTool.handler({ pattern: "zzz" }, context)).message).toBe('No matches for pattern "zzz".');
    expect((await grepTool.handler({ pattern: "[oops" }, context)).message).toMatch(/Invalid regex/);
  });

  it("answers every ReDoS corpus pattern within 2 s while the event loop keeps running", async () => {
    const rows = readFileSync(securityFixture("redos-patterns.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { pattern: string; subject_repeat: [string, number, string] });
    for (const row of rows) {
      const [unit, count, tail] = row.subject_repeat;
      await fs.write("subject.txt", `${unit.repeat(count)}${tail}\n`);
      let ticks = 0;
      const timer = setInterval(() => ticks++, 20);
      const started = Date.now();
      const result = await grepTool.handler({ pattern: row.pattern }, context);
      const elapsed = Date.now() - started;
      clearInterval(timer);
      expect(elapsed, row.pattern.slice(0, 40)).toBeLessThan(2_000);
      if (!result.success) expect(result.message, row.pattern.slice(0, 40)).toMatch(/timed out|Invalid regex|unsupported/);
      if (elapsed > 200) expect(ticks, `event loop starved by ${row.pattern.slice(0, 40)}`).toBeGreaterThan(elapsed / 20 / 3);
    }
  });
});

describe("rm", () => {
  it("removes a subtree and requires an existing path", async () => {
    const result = await rmTool.handler({ path: "src" }, context);
    expect(result).toEqual({ success: true, message: "Deleted 4 entries under src.", value: { __type__: "wink_debug.tools:RemoveResult", path: "src", removed: 4 } });
    expect(await fs.exists("src/app.ts")).toBe(false);
    expect((await rmTool.handler({ path: "src" }, context)).success).toBe(false);
    expect((await rmTool.handler({ path: "." }, context)).message).toMatch(/Cannot delete root/);
  });
});

/**
 * The spec's result types (filesystem-protocol.md: FileEntry, GlobMatch, GrepMatch,
 * ReadResult, WriteResult), by their snake_case field names as WINK writes them.
 */
const SPEC_FIELDS: Record<string, readonly string[]> = {
  "weakincentives.filesystem._types:FileEntry": ["name", "path", "is_file", "is_directory"],
  "weakincentives.filesystem._types:GlobMatch": ["path", "is_file"],
  "weakincentives.filesystem._types:GrepMatch": ["path", "line_number", "line_content", "match_start", "match_end"],
  "weakincentives.filesystem._types:ReadResult": ["content", "path", "total_lines", "offset", "limit", "truncated"],
  "weakincentives.filesystem._types:WriteResult": ["path", "bytes_written", "mode"],
  "wink_debug.tools:RemoveResult": ["path", "removed"],
};

describe("tool values in session data", () => {
  it("are WINK's snake_case shapes with a __type__, with every field of the spec's result type, and survive json.dumps", async () => {
    const calls: [ToolDefinition, Record<string, unknown>][] = [
      [lsTool, {}],
      [globTool, { pattern: "*.ts" }],
      [grepTool, { pattern: "const" }],
      [readFileTool, { file_path: "src/app.ts" }],
      [writeFileTool, { file_path: "new.txt", content: "x" }],
      [editFileTool, { file_path: "new.txt", old_string: "x", new_string: "y" }],
      [rmTool, { path: "new.txt" }],
    ];
    for (const [tool, params] of calls) {
      const result = await tool.handler(params, context);
      const items = Array.isArray(result.value) ? result.value : [result.value];
      expect(items.length, tool.name).toBeGreaterThan(0);
      for (const item of items as Record<string, unknown>[]) {
        const type = item.__type__ as string;
        expect(type, tool.name).toMatch(/^[a-z_][\w.]*:[A-Z]\w*$/);
        expect(Object.keys(item), `${tool.name} (${type})`).toEqual(expect.arrayContaining([...(SPEC_FIELDS[type] ?? ["(unknown type)"])]));
        for (const key of Object.keys(item)) expect(key, tool.name).toMatch(/^(__type__|[a-z][a-z0-9_]*)$/);
        expect(parsePythonJson(dumpsPython(item as never, { sortKeys: true }))).toEqual(item);
      }
    }
  });
});
