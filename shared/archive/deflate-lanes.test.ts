import { randomBytes } from "node:crypto";
import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { DeflateLanes, looksIncompressible } from "./deflate-lanes.node.js";

describe("DeflateLanes", () => {
  it("turns every buffer into an independent raw deflate stream, in parallel lanes", async () => {
    const lanes = new DeflateLanes(6, 3, 64 * 1024);
    try {
      const inputs = Array.from({ length: 200 }, (_, i) => Buffer.from(`file ${i}: ${"abc".repeat(i * 7)}`.repeat(1 + (i % 5))));
      inputs.push(randomBytes(60 * 1024), Buffer.alloc(1), randomBytes(200 * 1024)); // the last exceeds maxInputBytes
      const outputs = await Promise.all(inputs.map((input) => lanes.compress(input)));
      outputs.forEach((output, i) => expect(zlib.inflateRawSync(output).equals(inputs[i] as Buffer), `input ${i}`).toBe(true));
      // Independence: decoding one stream never needs another's history.
      expect(zlib.inflateRawSync(outputs[150] as Buffer).equals(inputs[150] as Buffer)).toBe(true);
    } finally {
      lanes.close();
    }
  });

  it("sniffs incompressible samples", () => {
    expect(looksIncompressible([randomBytes(64 * 1024)])).toBe(true);
    expect(looksIncompressible([randomBytes(1000), randomBytes(30_000)])).toBe(true);
    expect(looksIncompressible([Buffer.from("export const x = 1;\n".repeat(4000))])).toBe(false);
  });
});
