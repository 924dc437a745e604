/**
 * aedes-persistence's two layers, which its package exports only combined (its main builds the
 * callback layer over the in-memory one): typed here for broker-persistence.ts, which puts its own
 * retained-message index into the in-memory one. The in-memory class's own types ship in
 * types/asyncPersistence.d.ts, under a path TypeScript does not find by itself.
 */
declare module 'aedes-persistence/asyncPersistence.js' {
  import type { Readable } from 'node:stream';
  import type { PublishPacket } from 'aedes';

  export default class MemoryPersistence {
    constructor(opts?: object);
    storeRetained(packet: PublishPacket): Promise<void>;
    createRetainedStream(pattern: string): Readable;
    createRetainedStreamCombi(patterns: string[]): Readable;
    destroy(): Promise<void>;
  }
}

declare module 'aedes-persistence/callBackPersistence.js' {
  import type { AedesPersistence } from 'aedes-persistence';

  export class CallBackPersistence {
    constructor(asyncInstanceFactory: (opts: object) => object, opts?: object);
  }
  export interface CallBackPersistence extends AedesPersistence {}
}
