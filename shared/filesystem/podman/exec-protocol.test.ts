import { describe, expect, it } from "vitest";
import { ExecProtocolError, ResponseParser, parseStatus, statusError } from "./exec-protocol.js";
import { parseScan } from "./exec-driver.js";

function frame(body: Buffer, status: string, chunk = 3): Buffer {
  const parts: Buffer[] = [];
  for (let at = 0; at < body.length; at += chunk) {
    const piece = body.subarray(at, at + chunk);
    parts.push(Buffer.from(`${piece.length}\n`), piece);
  }
  parts.push(Buffer.from(`0\n${status}\n`));
  return Buffer.concat(parts);
}

describe("ResponseParser", () => {
  it("reassembles responses split at every possible byte boundary", () => {
    const body = Buffer.from([0, 10, 255, 48, 10, 101, 110, 100, 32, 111, 107, 10]); // contains "\n" and "end ok\n"
    const wire = Buffer.concat([frame(body, "end ok"), frame(Buffer.alloc(0), "end err ENOENT missing a/b")]);
    for (let split = 0; split <= wire.length; split++) {
      const parser = new ResponseParser();
      const responses = [...parser.push(wire.subarray(0, split)), ...parser.push(wire.subarray(split))];
      expect(responses).toHaveLength(2);
      expect([...(responses[0]?.body ?? [])]).toEqual([...body]);
      expect(responses[0]?.status.ok).toBe(true);
      expect(responses[1]?.status).toEqual({ ok: false, code: "ENOENT", reason: "missing", detail: "a/b" });
      expect(parser.idle).toBe(true);
    }
  });

  it("feeds one byte at a time", () => {
    const parser = new ResponseParser();
    const wire = frame(Buffer.from("hello world"), "end ok", 4);
    const responses = [...wire].flatMap((byte) => parser.push(Buffer.from([byte])));
    expect(responses.map((r) => r.body.toString())).toEqual(["hello world"]);
  });

  it("rejects anything that is not a response", () => {
    expect(() => new ResponseParser().push(Buffer.from("hello\n"))).toThrow(ExecProtocolError);
    expect(() => new ResponseParser().push(Buffer.from("-1\n"))).toThrow(ExecProtocolError);
    expect(() => new ResponseParser().push(Buffer.from("0\nnot a status\n"))).toThrow(ExecProtocolError);
    expect(() => new ResponseParser().push(Buffer.from("1".repeat(40)))).toThrow(/Overlong/);
    expect(() => new ResponseParser().push(Buffer.from(`0\n${"x".repeat(10_000)}`))).toThrow(/Overlong/);
  });

  it("parses status lines strictly", () => {
    expect(parseStatus("end ok").ok).toBe(true);
    expect(parseStatus("end err EACCES symlink dir/link")).toEqual({ ok: false, code: "EACCES", reason: "symlink", detail: "dir/link" });
    expect(parseStatus("end err EEXIST exists")).toEqual({ ok: false, code: "EEXIST", reason: "exists", detail: "" });
    expect(() => parseStatus("end err lower case")).toThrow(ExecProtocolError);
    expect(() => parseStatus("end okay")).toThrow(ExecProtocolError);
  });
});

describe("statusError", () => {
  const err = (code: string, reason: string, detail = "") => statusError({ ok: false, code, reason, detail }, "a/b/c.txt", "read");

  it("maps helper codes to our error classes, naming the path and the component at fault", () => {
    expect(err("ENOENT", "missing", "a")).toMatchObject({ code: "ENOENT", data: { path: "a/b/c.txt" }, message: "No such file or directory: a (in a/b/c.txt)" });
    expect(err("ENOTDIR", "notdir", "a/b")).toMatchObject({ code: "ENOTDIR", message: "Not a directory: a/b (in a/b/c.txt)" });
    expect(err("EACCES", "symlink", "a")).toMatchObject({ code: "EACCES", data: { reason: "symlink", component: "a" } });
    expect(err("EACCES", "symlink").message).toMatch(/symbolic link a\/b\/c\.txt: symlinks are never followed/);
    expect(err("EACCES", "other").message).toBe("Refusing to read a/b/c.txt: not a regular file");
    expect(err("ENOTEMPTY", "notempty").message).toMatch(/recursive: true/);
    expect(err("EISDIR", "dir").code).toBe("EISDIR");
    expect(err("EEXIST", "exists").code).toBe("EEXIST");
    expect(err("EIO", "write").code).toBe("EIO");
    expect(err("EINVAL", "stage").code).toBe("EINVAL");
  });
});

describe("parseScan", () => {
  it("reads plain lines and NUL-framed records for names with newlines, relative to the root", () => {
    const body = Buffer.concat([
      Buffer.from("81a4 5 1700000000 644 /workspace/a b.txt\n41ed 4096 1700000001 755 /workspace/dir\na1ff 4 1700000002 777 /workspace/dir/link\n"),
      Buffer.from([0]),
      Buffer.from("81a4 2 1700000003 600\n/workspace/odd\nname\u0000"),
      Buffer.from("11a4 0 1700000004 644 /elsewhere/x\n"), // malformed tail record: ignored
    ]);
    expect(parseScan(body, "/workspace")).toEqual([
      { path: "a b.txt", kind: "file", size: 5, mode: 0o644, mtimeMs: 1_700_000_000_000 },
      { path: "dir", kind: "directory", size: 0, mode: 0o755, mtimeMs: 1_700_000_001_000 },
      { path: "dir/link", kind: "symlink", size: 0, mode: 0o777, mtimeMs: 1_700_000_002_000 },
      { path: "odd\nname", kind: "file", size: 2, mode: 0o600, mtimeMs: 1_700_000_003_000 },
    ]);
  });

  it("drops paths outside the root and classifies special files", () => {
    const body = Buffer.from("11a4 0 1 644 /workspace/fifo\n81a4 1 1 644 /workspaceX/a\n81a4 1 1 644 /other/b\n");
    expect(parseScan(body, "/workspace").map((e) => [e.path, e.kind])).toEqual([["fifo", "other"]]);
  });
});
