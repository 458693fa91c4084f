/**
 * The checksum line of a bundle's facts. The summary checks only the members read so far,
 * so "6 of 7 verified" read like one failed check: it now says what the rest are (not read
 * yet, and that none mismatched), and names mismatches and missing members apart.
 */
import type { BundleIntegrityResponse } from "../../api/bundle-api.js";
import { plural } from "../../components/format.js";

export function integrityText(integrity: BundleIntegrityResponse): { text: string; bad: boolean } {
  if (!integrity.supported) return { text: `${integrity.algorithm}: not checked`, bad: false };
  const bad = [
    integrity.mismatched.length > 0 ? `${integrity.mismatched.length} mismatched` : null,
    integrity.missing.length > 0 ? `${integrity.missing.length} missing` : null,
  ].filter((part): part is string => part !== null);
  if (bad.length > 0) return { text: `${bad.join(", ")} of ${integrity.listed} listed`, bad: true };
  if (integrity.unverified.length === 0) return { text: `all ${plural(integrity.listed, "checksum")} match`, bad: false };
  return { text: `${integrity.verified} match, ${integrity.unverified.length} not read yet (none mismatched; the Manifest tab checks all)`, bad: false };
}
