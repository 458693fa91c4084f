/** A file time (ms since the epoch, as `fs.Stats` gives it) as the API writes times: ISO 8601 in UTC. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
