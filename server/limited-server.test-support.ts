/**
 * The CLI's server in a process of its own, for tests that set its open-file limit
 * (`prlimit --nofile=…`): the first stage, listening on a free loopback port, handed over to
 * the full app as `cli.ts` does, with the timeouts and connection limits given as JSON.
 * `node --import tsx limited-server.test-support.ts DIR '{"keepAliveTimeoutMs":300}'`;
 * prints `port N` once the full app answers.
 */
import type { AddressInfo } from "node:net";
import { buildApp } from "./app.js";
import { createFirstStage } from "./first-stage.js";
import type { ReceiveTimeouts } from "./first-stage.js";
import type { ConnectionLimits } from "./http/connection-limits.js";
import { openServedState } from "./library/served-state.js";

const [dir, limitsJson] = process.argv.slice(2);
if (dir === undefined) throw new Error("usage: limited-server.test-support.ts DIR [LIMITS_JSON]");
const limits = JSON.parse(limitsJson ?? "{}") as ReceiveTimeouts & ConnectionLimits;
const served = await openServedState({ path: dir });
const stage = createFirstStage(served.state, { bindHost: "127.0.0.1", ...limits });
await new Promise<void>((resolve) => stage.server.listen({ host: "127.0.0.1", port: 0 }, resolve));
const { app, handler } = await buildApp({ path: dir, served, server: stage.server, bindHost: "127.0.0.1", watch: false, indexInBackground: false });
await app.ready();
if (handler !== null) stage.handOver(handler);
process.stdout.write(`port ${(stage.server.address() as AddressInfo).port}\n`);
