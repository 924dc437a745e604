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
export const PAYLOAD_VERSIONS = [1] as const;
export type PayloadVersion = (typeof PAYLOAD_VERSIONS)[number];

/** What every device speaks: the version the cloud uses with a device that has said nothing else. */
export const BASE_VERSION: PayloadVersion = 1;

export function isPayloadVersion(value: unknown): value is PayloadVersion {
  return (PAYLOAD_VERSIONS as readonly unknown[]).includes(value);
}
