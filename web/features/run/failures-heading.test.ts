import { describe, expect, it } from "vitest";
import { noFailuresText } from "./failures-heading.js";

describe("noFailuresText", () => {
  it("does not say 'No failures' under a run-level error (issue 32)", () => {
    const said = noFailuresText({ type: "PromptEvaluationError" });
    expect(said.heading).toBe("No failed calls");
    expect(said.text).toBe("The run failed with PromptEvaluationError (above); none of its tool calls failed.");
    expect(`${said.heading} ${said.text}`).not.toMatch(/No failures|No tool call failed/);
  });
  it("names an error without a type as an error", () => {
    expect(noFailuresText({ type: null }).text).toBe("The run failed with an error (above); none of its tool calls failed.");
  });
  it("says no failures when the run has no error either", () => {
    expect(noFailuresText(null)).toEqual({ heading: "No failures", text: "No tool call failed and no event carries an error." });
  });
});
