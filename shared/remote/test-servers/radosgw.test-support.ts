/**
 * A real S3 store for tests: Ceph radosgw (Debian's ceph 16) on a single-node cluster with
 * an in-memory OSD (memstore), no auth between daemons, no systemd, free loopback ports.
 * Up in ~2–4 s, ~190 MiB; everything lives in a temp dir removed on stop.
 *
 * Pitfalls handled (measured on this machine, see docs/remote-sources.md): the OSD dies with
 * "wrong fsid" at start without auth unless crush/class updates on start are off and the OSD
 * is added to the map by hand; a non-default monitor port needs `--addv [v1:…]` or clients
 * hang; the monitor stops below 5 % free disk by default (limits lowered); daemons never
 * share the test's stdout.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { CreateBucketCommand, DeleteObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { DaemonGroup, freePort, requireCommands } from "./daemons.test-support.js";

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

export interface S3User {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

export interface RadosGateway {
  readonly endpoint: string;
  readonly region: string;
  /** Owner of the buckets the tests create. */
  readonly owner: S3User;
  /** A second user: valid keys, but no access to the owner's buckets (403 AccessDenied). */
  readonly stranger: S3User;
  /** An SDK client as the owner, for setting up objects. */
  readonly admin: S3Client;
  createBucket(name: string): Promise<void>;
  put(bucket: string, key: string, body: Uint8Array | string): Promise<void>;
  remove(bucket: string, key: string): Promise<void>;
  stop(): Promise<void>;
}

const CEPH_COMMANDS = ["ceph-mon", "ceph-osd", "radosgw", "radosgw-admin", "ceph", "monmaptool", "ceph-authtool"];

function cephConf(dir: string, fsid: string, monPort: number, rgwPort: number): string {
  return `[global]
fsid = ${fsid}
mon host = v1:127.0.0.1:${monPort}
mon initial members = a
public network = 127.0.0.0/8
auth cluster required = none
auth service required = none
auth client required = none
auth allow insecure global id reclaim = true
run dir = ${dir}
admin socket = ${dir}/$name.asok
pid file = ${dir}/$name.pid
log file = ${dir}/$name.daemon.log
keyring = ${dir}/keyring
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon allow pool delete = true
mon warn on pool no redundancy = false
mon max pg per osd = 1000
paxos propose interval = 0.05
paxos min wait = 0.01
mon data avail warn = 2
mon data avail crit = 1
osd crush chooseleaf type = 0
ms bind ipv6 = false
client mount timeout = 30
rados mon op timeout = 60
rados osd op timeout = 60
[mon.a]
mon data = ${dir}/mon.a
mon addr = v1:127.0.0.1:${monPort}
[osd]
osd crush update on start = false
osd class update on start = false
[osd.0]
osd data = ${dir}/osd.0
osd objectstore = memstore
memstore device bytes = 2147483648
osd memory target = 939524096
[client.rgw]
rgw data = ${dir}/rgw
rgw frontends = beast endpoint=127.0.0.1:${rgwPort}
`;
}

async function answers(url: string): Promise<boolean> {
  const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
  await response.arrayBuffer();
  return true;
}

async function startOnce(timeoutMs: number): Promise<RadosGateway> {
  const group = new DaemonGroup("radosgw");
  try {
    const deadline = Date.now() + timeoutMs;
    const left = (): number => Math.max(1000, deadline - Date.now());
    const dir = group.dir;
    const [monPort, rgwPort] = [await freePort(), await freePort()];
    const fsid = randomUUID();
    const conf = path.join(dir, "ceph.conf");
    writeFileSync(conf, cephConf(dir, fsid, monPort, rgwPort));
    writeFileSync(path.join(dir, "keyring"), "");
    for (const sub of ["mon.a", "osd.0", "rgw"]) mkdirSync(path.join(dir, sub));
    await group.run("ceph-authtool", ["--create-keyring", path.join(dir, "mon.keyring"), "--gen-key", "-n", "mon.", "--cap", "mon", "allow *"], left());
    await group.run("monmaptool", ["--create", "--addv", "a", `[v1:127.0.0.1:${monPort}]`, "--fsid", fsid, path.join(dir, "monmap")], left());
    await group.run("ceph-mon", ["-c", conf, "--mkfs", "-i", "a", "--monmap", path.join(dir, "monmap"), "--keyring", path.join(dir, "mon.keyring")], left());
    group.spawn("ceph-mon", ["-c", conf, "-i", "a", "-f"], "mon");
    await group.run("ceph", ["-c", conf, "--connect-timeout", String(Math.ceil(left() / 1000)), "mon", "stat"], left());
    const osdUuid = randomUUID();
    const id = (await group.run("ceph", ["-c", conf, "osd", "new", osdUuid], left())).trim();
    await group.run("ceph", ["-c", conf, "osd", "crush", "add", `osd.${id}`, "1.0", "root=default", "host=localhost"], left());
    await group.run("ceph-osd", ["-c", conf, "-i", id, "--mkfs", "--osd-uuid", osdUuid], left());
    group.spawn("ceph-osd", ["-c", conf, "-i", id, "-f"], "osd");
    await group.waitFor("the OSD", async () => (await group.run("ceph", ["-c", conf, "osd", "stat"], 10_000)).includes("1 up"), left());
    const owner = { accessKeyId: `OWNER${randomUUID().slice(0, 8).toUpperCase()}`, secretAccessKey: randomUUID() };
    const stranger = { accessKeyId: `OTHER${randomUUID().slice(0, 8).toUpperCase()}`, secretAccessKey: randomUUID() };
    for (const [uid, user] of [["owner", owner], ["stranger", stranger]] as const) {
      await group.run("radosgw-admin", ["-c", conf, "user", "create", `--uid=${uid}`, `--display-name=${uid}`, `--access-key=${user.accessKeyId}`, `--secret-key=${user.secretAccessKey}`], left());
    }
    group.spawn("radosgw", ["-c", conf, "-n", "client.rgw", "-f"], "rgw");
    const endpoint = `http://127.0.0.1:${rgwPort}`;
    await group.waitFor("radosgw's HTTP endpoint", () => answers(`${endpoint}/`), left());
    const region = "us-east-1";
    const admin = new S3Client({ endpoint, region, forcePathStyle: true, credentials: owner, requestChecksumCalculation: "WHEN_REQUIRED", responseChecksumValidation: "WHEN_REQUIRED" });
    return {
      endpoint,
      region,
      owner,
      stranger,
      admin,
      async createBucket(name) {
        await admin.send(new CreateBucketCommand({ Bucket: name }));
      },
      async put(bucket, key, body) {
        await admin.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
      },
      async remove(bucket, key) {
        await admin.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
      },
      async stop() {
        admin.destroy();
        await group.stop();
      },
    };
  } catch (error) {
    await group.stop();
    throw error;
  }
}

/**
 * Starts radosgw (and its monitor and OSD), within `timeoutMs` (default 120 s: a loaded
 * 2-core machine is slow). A port taken between choosing and binding it is retried once.
 */
export async function startRadosGateway(options: { timeoutMs?: number } = {}): Promise<RadosGateway> {
  requireCommands(CEPH_COMMANDS, "Debian packages ceph-mon ceph-osd radosgw ceph-common");
  const timeoutMs = options.timeoutMs ?? 120_000;
  try {
    return await startOnce(timeoutMs);
  } catch (error) {
    if (!/Address already in use|bind/i.test(String(error))) throw error;
    return startOnce(timeoutMs);
  }
}
