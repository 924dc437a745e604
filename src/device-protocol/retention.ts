/**
 * What a broker keeps of the messages access points publish retained (docs/device-protocol.md,
 * "Retained messages"). A retained message stays in the broker's memory after its sender has gone,
 * so a device may keep only what the protocol needs: its status, its pairing list, and one state
 * report per lock that list names, each a valid message no larger than its kind allows. Pure: the
 * embedded broker asks, and forgets what it is told to.
 */
import { decode } from './codec.ts';
import { isRetainedKind, MAX_RETAINED_BYTES, type ParsedTopic } from './topics.ts';

export type RetainVerdict =
  /** `forget`: locks whose retained state is to be cleared, since they left the pairing list. */
  | { readonly keep: true; readonly forget: readonly string[] }
  | { readonly keep: false; readonly why: string };

const KEEP: RetainVerdict = { keep: true, forget: [] };

export class RetainedPolicy {
  /** Each access point's locks, as its latest valid pairing list named them. */
  private readonly paired = new Map<string, ReadonlySet<string>>();

  /**
   * Whether a message the access point `apId` published retained on its own topic `topic` may be
   * kept. A zero-length payload clears the topic, and is always let through. A state report is kept
   * only after a pairing list naming its lock (an access point announces its list first).
   */
  judge(apId: string, topic: ParsedTopic, payload: Uint8Array): RetainVerdict {
    if (payload.byteLength === 0) return KEEP;
    const { kind } = topic;
    if (!isRetainedKind(kind)) return { keep: false, why: `a ${kind} message is never retained` };
    if (payload.byteLength > MAX_RETAINED_BYTES[kind])
      return { keep: false, why: `a retained ${kind} message is at most ${MAX_RETAINED_BYTES[kind]} bytes` };
    if (kind === 'status') {
      const decoded = decode('status', payload);
      return decoded.ok ? KEEP : { keep: false, why: decoded.problem };
    }
    if (kind === 'state') {
      const known = this.paired.get(apId);
      if (topic.lock === undefined || !known?.has(topic.lock))
        return { keep: false, why: 'the state of a lock its pairing list does not name' };
      const decoded = decode('state', payload);
      return decoded.ok ? KEEP : { keep: false, why: decoded.problem };
    }
    const decoded = decode('locks', payload);
    if (!decoded.ok) return { keep: false, why: decoded.problem };
    const locks = new Set(decoded.message.locks.map((lock) => lock.device_id));
    const before = this.paired.get(apId) ?? new Set<string>();
    this.paired.set(apId, locks);
    return { keep: true, forget: [...before].filter((lock) => !locks.has(lock)) };
  }
}
