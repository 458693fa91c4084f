import { describe, expect, it } from "vitest";
import { pathParts } from "./CutPath.js";

describe("pathParts", () => {
  it("splits a path before its last segment, the slash kept with the file name", () => {
    expect(pathParts("weakincentives/contrib/tools/session.py")).toEqual({ head: "weakincentives/contrib/tools", tail: "/session.py" });
    expect(pathParts("/abs/dir/")).toEqual({ head: "/abs", tail: "/dir/" });
  });
  it("leaves whole what is not one path with directories", () => {
    expect(pathParts("README.md")).toBeNull();
    expect(pathParts("/README.md")).toBeNull();
    expect(pathParts("pytest tests/test_a.py -x")).toBeNull();
    expect(pathParts("")).toBeNull();
  });
});
