// HTTP stores over TLS (issue 30 lists https:// targets): a real nginx serves a folder of runs
// over HTTPS with a certificate from a private CA made here by openssl. With the CA trusted the
// documented way (NODE_EXTRA_CA_CERTS, read by Node at start) `wink-debug failures` groups the
// runs as it does the local folder, and the viewer lists them; without it, both say the
// certificate is not trusted, naming the URL and the way to trust it, with no stack trace.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FailureReportView } from "../shared/viewer/index.js";
import { type NginxServer, type TestCertificates, makeTestCertificates, startTlsNginx } from "../shared/remote/test-servers/nginx.test-support.js";
import { startCli, stopClis, waitForUrl } from "./cli.test-support.js";
import { writeMixedEval } from "./failures.test-support.js";
import { cleanUp, tempDir } from "./server.test-support.js";

/** Tests that start the CLI more than once: each start transpiles the sources (seconds on a loaded 2-core machine). */
const SEVERAL_STARTS_MS = 180_000;

let scratch: string;
let folder: string;
let certificates: TestCertificates;
let nginx: NginxServer;

beforeAll(async () => {
  scratch = await tempDir("wink-remote-https-");
  folder = path.join(scratch, "eval");
  await writeMixedEval(folder);
  certificates = makeTestCertificates(scratch);
  nginx = await startTlsNginx(folder, certificates);
}, 120_000);

afterAll(async () => {
  stopClis();
  await nginx?.stop();
  await cleanUp();
});

/** The CLI's environment: its own user cache; with `ca`, that file trusted as Node documents it. */
function environment(ca: string | null): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CACHE_HOME: path.join(scratch, "user-cache") };
  delete env.NODE_EXTRA_CA_CERTS;
  delete env.NODE_TLS_REJECT_UNAUTHORIZED;
  return ca === null ? env : { ...env, NODE_EXTRA_CA_CERTS: ca };
}

async function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const cli = startCli(args, { env });
  const code = await cli.exit;
  return { code, stdout: cli.output(), stderr: cli.errors() };
}

describe("an HTTP folder over HTTPS (nginx, a private CA)", () => {
  it("is read by `failures` with the CA trusted through NODE_EXTRA_CA_CERTS, as the same folder is locally", async () => {
    const local = await run(["failures", folder, "-r", "--json", "--no-cache"], environment(null));
    expect(local.code, local.stderr).toBe(0);
    const remote = await run(["failures", nginx.url, "-r", "--json", "--no-cache"], environment(certificates.caFile));
    expect(remote.code, remote.stderr).toBe(0);
    expect(JSON.parse(remote.stdout) as FailureReportView).toEqual(JSON.parse(local.stdout) as FailureReportView);
    expect(remote.stderr).toContain(`Reading 7 runs of ${nginx.url}…`);
  }, SEVERAL_STARTS_MS);

  it("is listed by the viewer with the CA trusted", async () => {
    const cli = startCli([nginx.url, "-r", "--port", "0", "--no-cache"], { env: environment(certificates.caFile) });
    const url = await waitForUrl(cli.output, 60_000);
    let runs: { path: string }[] = [];
    for (const deadline = Date.now() + 60_000; runs.length < 7 && Date.now() < deadline; ) {
      const response = await fetch(`${url}api/runs?limit=50`);
      if (response.status === 200) runs = ((await response.json()) as { runs: { path: string }[] }).runs;
      else await response.arrayBuffer();
      if (runs.length < 7) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(runs.map((entry) => entry.path).sort()).toHaveLength(7);
    cli.child.kill("SIGTERM");
    await cli.exit;
  }, SEVERAL_STARTS_MS);

  it("is refused when the certificate is not trusted: exit 4, the URL and how to trust a private CA, no stack trace", async () => {
    const refused = await run(["failures", nginx.url, "-r", "--no-cache"], environment(null));
    expect(refused.code, refused.stderr).toBe(4);
    expect(refused.stderr).toContain(nginx.url);
    expect(refused.stderr).toMatch(/its TLS certificate is not trusted \((UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY): /);
    expect(refused.stderr).toContain("[E_SOURCE_UNREACHABLE]");
    expect(refused.stderr).toContain("NODE_EXTRA_CA_CERTS");
    expect(refused.stderr).not.toMatch(/\n\s+at /);
    // The viewer started on it says the same at start instead of serving an empty list.
    const viewer = await run([nginx.url, "-r", "--port", "0", "--no-cache"], environment(null));
    expect(viewer.code, viewer.stderr).toBe(4);
    expect(viewer.stderr).toContain(nginx.url);
    expect(viewer.stderr).toContain("NODE_EXTRA_CA_CERTS");
    expect(viewer.stderr).not.toMatch(/\n\s+at /);
  }, SEVERAL_STARTS_MS);
});
