import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { PermissionDeniedError } from "../errors.js";
import { ReservedNames, onceUntilDone } from "./driver-support.js";

describe("onceUntilDone", () => {
  it("runs the task once for every caller while it runs and after it succeeded", async () => {
    let runs = 0;
    const ready = onceUntilDone(async () => {
      runs += 1;
      await new Promise((resolve) => setTimeout(resolve, 5));
    });
    await Promise.all([ready(), ready(), ready()]);
    await ready();
    assert.equal(runs, 1);
  });

  it("forgets a failed run, so the next call tries again", async () => {
    let runs = 0;
    const ready = onceUntilDone(async () => {
      runs += 1;
      if (runs === 1) throw new Error("transient");
    });
    await assert.rejects(ready(), /transient/);
    await ready();
    await ready();
    assert.equal(runs, 2);
  });
});

describe("ReservedNames", () => {
  const reserved = new ReservedNames(".wink-apply-");

  it("knows the driver's own names by their prefix, only at the start of the path", () => {
    assert.equal(reserved.has(".wink-apply-1234"), true);
    assert.equal(reserved.has("src/.wink-apply-1234"), false);
    assert.equal(reserved.has("wink-apply-1234"), false);
  });

  it("refuses an action on one with a permission error that says why", () => {
    assert.throws(() => reserved.refuse(".wink-apply-x/a", "write"), (error: unknown) => error instanceof PermissionDeniedError && /Refusing to write .*reserved for tree changes in progress/.test(error.message));
    reserved.refuse("src/a", "write");
  });
});
