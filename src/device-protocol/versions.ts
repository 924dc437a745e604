/**
 * The device protocol's two version numbers (docs/device-protocol.md, "Versioning"):
 *
 * - the topic generation, `lc/{TOPIC_GENERATION}/...`: the layout of the topics. A change old devices
 *   cannot follow (a topic moved, a meaning changed) gets a new generation, spoken beside the old one.
 * - the payload version, every message's `v`: within one generation, a version adds fields or
 *   values. Every version listed here is accepted from any device; the cloud speaks to each device
 *   a version it knows (the base version until the device says it knows a later one).
 */

export const TOPIC_GENERATION = 1;

/** The payload versions this build reads and writes, oldest first. */
export const PAYLOAD_VERSIONS = [1, 2] as const;
export type PayloadVersion = (typeof PAYLOAD_VERSIONS)[number];

/** The latest version this build speaks. */
export const LATEST_VERSION: PayloadVersion = PAYLOAD_VERSIONS[PAYLOAD_VERSIONS.length - 1] ?? 1;

/** What every device speaks: the version the cloud uses with a device that has said nothing else. */
export const BASE_VERSION = 1 satisfies PayloadVersion;

export function isPayloadVersion(value: unknown): value is PayloadVersion {
  return (PAYLOAD_VERSIONS as readonly unknown[]).includes(value);
}

/**
 * The version the cloud speaks with an access point: the highest both know. `versions` is what its
 * status names; a status that names none (every version-1 status) means version 1 only, and so does
 * a list with nothing in common with ours (every device speaks the base version).
 */
export function negotiatedVersion(versions: readonly number[] | undefined): PayloadVersion {
  let best: PayloadVersion = BASE_VERSION;
  if (versions === undefined) return best;
  for (const version of versions) if (isPayloadVersion(version) && version > best) best = version;
  return best;
}
