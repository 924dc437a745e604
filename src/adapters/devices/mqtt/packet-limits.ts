/**
 * How large an MQTT packet to the device broker may be: the embedded broker applies these while
 * reading (connection-guard.ts), and `admin mqtt-acl` writes the same into Mosquitto's configuration.
 */
import { MAX_PAYLOAD_BYTES } from '../../../device-protocol/codec.ts';

/**
 * A CONNECT holds a client id, a user name, a password and a last will (a status message): a few
 * hundred bytes. Before authentication no packet may be larger.
 */
export const MAX_CONNECT_BYTES = 4096;

/** Before authentication, all bytes together: a CONNECT and the few packets a client may send before its CONNACK. */
export const MAX_UNAUTHENTICATED_BYTES = 4 * MAX_CONNECT_BYTES;

// A PUBLISH is its topic (2 bytes of length, the topic), a packet id, MQTT 5 properties and its payload.
const PACKET_OVERHEAD_BYTES = 4096;

/** The largest packet after authentication: a payload of the protocol's limit, on the longest topic. */
export function maxPacketBytes(topicPrefix: string): number {
  return MAX_PAYLOAD_BYTES + PACKET_OVERHEAD_BYTES + new TextEncoder().encode(topicPrefix).byteLength;
}
