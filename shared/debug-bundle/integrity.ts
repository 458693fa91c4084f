/**
 * The manifest's `integrity.checksums` (SHA-256 of every member but the manifest), checked
 * as members are read: a member is hashed when something reads it, so opening a bundle
 * still reads only what is shown, and `verifyAll` checks the rest on request. A mismatch is
 * recorded and reported (the member is still shown, flagged) — never hidden, never fatal.
 */
import type { BundleIntegrityView } from "./types.js";

/** SHA-256 of some bytes as lowercase hex. The server passes node:crypto's (Web Crypto in Node is ~30x slower on megabytes). */
export type Sha256 = (bytes: Uint8Array) => string | Promise<string>;

/** Web Crypto's SHA-256, available in browsers and in Node ≥ 19. */
export const webCryptoSha256: Sha256 = async (bytes) => {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  let hex = "";
  for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
  return hex;
};

type Verdict = { readonly state: "verified" } | { readonly state: "mismatch"; readonly actual: string } | { readonly state: "pending"; readonly done: Promise<void> };

export class IntegrityTracker {
  readonly #expected: ReadonlyMap<string, string>;
  readonly #algorithm: string;
  readonly #present: ReadonlySet<string>;
  readonly #sha256: Sha256;
  readonly #verdicts = new Map<string, Verdict>();

  /** `present`: the members the zip holds (manifest.json excluded). */
  constructor(expected: ReadonlyMap<string, string>, algorithm: string, present: ReadonlySet<string>, sha256: Sha256) {
    this.#expected = expected;
    this.#algorithm = algorithm.toLowerCase();
    this.#present = present;
    this.#sha256 = sha256;
  }

  get supported(): boolean {
    return this.#algorithm === "sha256";
  }

  /** Records the checksum verdict of a member just read (hashing runs in the background). */
  observe(member: string, bytes: Uint8Array): void {
    const expected = this.#expected.get(member);
    if (expected === undefined || !this.supported || this.#verdicts.has(member)) return;
    const done = Promise.resolve()
      .then(() => this.#sha256(bytes))
      .then(
        (actual) => void this.#verdicts.set(member, actual === expected ? { state: "verified" } : { state: "mismatch", actual }),
        () => void this.#verdicts.delete(member),
      );
    this.#verdicts.set(member, { state: "pending", done });
  }

  /** False when the member was read and its checksum did not match; null while unknown. */
  verdictOf(member: string): boolean | null {
    const verdict = this.#verdicts.get(member);
    return verdict === undefined || verdict.state === "pending" ? null : verdict.state === "verified";
  }

  /** Reads and checks every listed member not checked yet. */
  async verifyAll(read: (member: string) => Promise<Uint8Array>): Promise<void> {
    if (!this.supported) return;
    for (const member of this.#expected.keys()) {
      if (!this.#present.has(member) || this.#verdicts.has(member)) continue;
      try {
        this.observe(member, await read(member));
      } catch {
        // an unreadable member (corrupt, over a limit) is reported by its own route
      }
    }
    await this.settled();
  }

  /** Waits for the hashes still running. */
  async settled(): Promise<void> {
    const pending = [...this.#verdicts.values()].filter((verdict): verdict is Extract<Verdict, { state: "pending" }> => verdict.state === "pending");
    await Promise.all(pending.map((verdict) => verdict.done));
  }

  view(): BundleIntegrityView {
    const mismatched: BundleIntegrityView["mismatched"] = [];
    const unverified: string[] = [];
    let verified = 0;
    for (const [member, expected] of this.#expected) {
      if (!this.#present.has(member)) continue;
      const verdict = this.#verdicts.get(member);
      if (verdict?.state === "verified") verified += 1;
      else if (verdict?.state === "mismatch") mismatched.push({ member, expected, actual: verdict.actual });
      else unverified.push(member);
    }
    const missing = [...this.#expected.keys()].filter((member) => !this.#present.has(member));
    const unlisted = [...this.#present].filter((member) => !this.#expected.has(member)).sort();
    return {
      algorithm: this.#algorithm,
      supported: this.supported,
      listed: this.#expected.size,
      verified,
      mismatched,
      missing,
      unlisted,
      unverified,
      complete: this.supported && unverified.length === 0,
      ok: mismatched.length > 0 || missing.length > 0 ? false : this.supported && unverified.length === 0 ? true : null,
    };
  }
}
