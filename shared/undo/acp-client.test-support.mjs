// A minimal ACP client for the stdio test, as a separate process: sends each step (a JSON-RPC
// request object, or a raw line given as a string) over stdout, waits for its response on
// stdin (notifications may arrive first), and finally prints everything it received as one
// JSON line on stderr.
//   node acp-client.mjs '<steps as JSON>'
import { createInterface } from "node:readline";

const steps = JSON.parse(process.argv[2] ?? "[]");
const received = [];
const waiting = [];
createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  received.push(message);
  if (!("method" in message)) waiting.shift()?.();
});
for (const step of steps) {
  const answered = new Promise((resolve) => waiting.push(resolve));
  process.stdout.write(`${typeof step === "string" ? step : JSON.stringify(step)}\n`);
  await answered;
}
process.stderr.write(`${JSON.stringify(received)}\n`);
process.exit(0);
