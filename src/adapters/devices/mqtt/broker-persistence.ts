import { Readable } from 'node:stream';
import type { PublishPacket } from 'aedes';
import type { AedesPersistence } from 'aedes-persistence';
import MemoryPersistence from 'aedes-persistence/asyncPersistence.js';
import { CallBackPersistence } from 'aedes-persistence/callBackPersistence.js';
import { RetainedTopics } from './retained-topics.ts';

/**
 * aedes's in-memory persistence with its retained messages grouped by access point
 * (retained-topics.ts) instead of one map scanned whole for every subscription. Everything else
 * (subscriptions, QoS 1 in flight, wills) is aedes-persistence's own.
 */
class IndexedRetainedPersistence extends MemoryPersistence {
  private readonly retained: RetainedTopics<PublishPacket>;

  constructor(opts: object, depth: number) {
    super(opts);
    this.retained = new RetainedTopics(depth);
  }

  override async storeRetained(pkt: PublishPacket): Promise<void> {
    // A copy, as aedes-persistence keeps one: the packet aedes passes on is not ours to hold.
    const packet = { ...pkt };
    if (packet.payload.length === 0) this.retained.delete(packet.topic);
    else this.retained.set(packet.topic, packet);
  }

  override createRetainedStream(pattern: string): Readable {
    return Readable.from(this.retained.matching(pattern));
  }

  override createRetainedStreamCombi(patterns: string[]): Readable {
    const retained = this.retained;
    return Readable.from(
      (function* () {
        for (const pattern of patterns) yield* retained.matching(pattern);
      })(),
    );
  }
}

/** The persistence for aedes's `persistence` option; `depth`: Topics.accessPointDepth. */
export function brokerPersistence(depth: number): AedesPersistence {
  return new CallBackPersistence((opts) => new IndexedRetainedPersistence(opts, depth));
}
