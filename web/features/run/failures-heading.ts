/**
 * What the failures card says when no call failed. Under a run-level error (a bundle's
 * `error.json`) "No failures — No tool call failed" contradicted the red box above it: the
 * run failed, only its calls did not.
 */
export function noFailuresText(error: { readonly type: string | null } | null): { heading: string; text: string } {
  if (error === null) return { heading: "No failures", text: "No tool call failed and no event carries an error." };
  return { heading: "No failed calls", text: `The run failed with ${error.type === null || error.type === "" ? "an error" : error.type} (above); none of its tool calls failed.` };
}
