import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as errors from "./errors.js";
import { ERROR_CODES, FileNotFoundError, WinkError, hasErrorCode } from "./errors.js";

describe("error table", () => {
  const doc = readFileSync(new URL("../docs/errors.md", import.meta.url), "utf8");

  it("documents every code with its HTTP status", () => {
    for (const [code, { status }] of Object.entries(ERROR_CODES)) {
      const row = doc.split("\n").find((line) => line.startsWith(`| \`${code}\` |`));
      expect(row, `docs/errors.md lacks ${code}`).toBeDefined();
      expect(row).toContain(`| ${status} |`);
    }
  });

  it("documents every exported error class", () => {
    for (const [name, value] of Object.entries(errors)) {
      if (typeof value === "function" && value.prototype instanceof WinkError) expect(doc, name).toContain(`\`${name}\``);
    }
  });

  it("keeps code, message and data across JSON", () => {
    const error = new FileNotFoundError("src/a.ts");
    expect(error).toBeInstanceOf(WinkError);
    expect(error.name).toBe("FileNotFoundError");
    expect(error.path).toBe("src/a.ts");
    const copy = JSON.parse(JSON.stringify(error)) as unknown;
    expect(copy).toEqual({ name: "FileNotFoundError", code: "ENOENT", message: "No such file or directory: src/a.ts", data: { path: "src/a.ts" } });
    expect(hasErrorCode(copy, "ENOENT")).toBe(true);
    expect(hasErrorCode(new Error("x"), "ENOENT")).toBe(false);
  });
});
