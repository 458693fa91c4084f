import { describe, expect, it } from "vitest";
import { LANDING_LOOKAHEAD_RUNS, landingRun } from "./landing-run.js";
import type { LandingProbe } from "./landing-run.js";

interface Candidate {
  name: string;
  loads?: boolean;
  failed?: boolean;
  calls?: boolean;
  remote?: boolean;
}

function probe(built: string[], extra: Partial<LandingProbe<Candidate>> = {}): LandingProbe<Candidate> {
  return {
    loads: async (candidate) => candidate.loads !== false,
    failed: async (candidate) => candidate.failed === true,
    failedCalls: async (candidate) => {
      built.push(candidate.name);
      return candidate.calls === true;
    },
    ...extra,
  };
}

describe("landingRun", () => {
  it("opens the newest run that failed as a whole before a newer one with failed calls, building no run for it", async () => {
    const built: string[] = [];
    const runs = [{ name: "retry-ok" }, { name: "calls", calls: true }, { name: "failed", failed: true }, { name: "older-failed", failed: true }];
    expect((await landingRun(runs, probe(built)))?.name).toBe("failed");
    expect(built).toEqual([]);
  });

  it("else the newest with a failed call, else the newest that loads", async () => {
    expect((await landingRun([{ name: "ok" }, { name: "calls", calls: true }, { name: "older", calls: true }], probe([])))?.name).toBe("calls");
    expect((await landingRun([{ name: "empty", loads: false }, { name: "ok" }, { name: "older" }], probe([])))?.name).toBe("ok");
    expect(await landingRun([{ name: "empty", loads: false }], probe([]))).toBeNull();
  });

  it("looks no further than the newest runs that load, and stops building runs when time is up", async () => {
    const runs: Candidate[] = Array.from({ length: LANDING_LOOKAHEAD_RUNS }, (_, index) => ({ name: `ok-${index}` }));
    expect((await landingRun([...runs, { name: "too-old", failed: true }], probe([])))?.name).toBe("ok-0");
    const built: string[] = [];
    let clock = 0;
    const slow = probe(built, { timeLeft: () => clock < 2, failedCalls: async (candidate) => (built.push(candidate.name), clock++, candidate.calls === true) });
    expect((await landingRun([{ name: "a" }, { name: "b" }, { name: "c", calls: true }], slow))?.name).toBe("a");
    expect(built).toEqual(["a", "b"]);
  });

  it("skips runs not yet read (a remote store's) once it has one that loads", async () => {
    const runs = [{ name: "unread", remote: true }, { name: "newest" }, { name: "unread-failed", remote: true, failed: true }];
    expect((await landingRun(runs, probe([], { skip: (candidate) => candidate.remote === true })))?.name).toBe("unread");
    expect((await landingRun(runs.slice(1), probe([], { skip: (candidate) => candidate.remote === true })))?.name).toBe("newest");
  });
});
