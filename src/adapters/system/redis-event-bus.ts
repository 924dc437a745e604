import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type {
  Cancel,
  EventBus,
  EventScope,
  LockStateChanged,
  Logger,
  ReadinessCheck,
} from '../../app/ports.ts';
import type { Task } from '../../domain/task.ts';
import { LocalEventBus } from './event-bus.ts';
import { closed } from './redis-closed.ts';

interface Envelope {
  readonly from: string;
  readonly kind: 'lock' | 'task';
  readonly event: unknown;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;

function isLockStateChanged(value: unknown): value is LockStateChanged {
  return (
    isObject(value) &&
    typeof value.deviceId === 'string' &&
    typeof value.ownerId === 'string' &&
    typeof value.locked === 'boolean' &&
    typeof value.at === 'number'
  );
}

function isTask(value: unknown): value is Task {
  return (
    isObject(value) &&
    typeof value.id === 'string' &&
    typeof value.deviceId === 'string' &&
    (value.status === 'processing' || value.status === 'terminated')
  );
}

/**
 * Events shared by every server process over Redis pub/sub: an event is delivered here at once and
 * published for the others, which deliver it to their 'everywhere' listeners. Pub/sub keeps nothing:
 * a process that misses a task's end (Redis away) still learns it, later, from the store (v1's wait
 * reads the task at its deadline), so Redis being down slows answers but loses none.
 */
export class RedisEventBus implements EventBus {
  private readonly here: LocalEventBus;
  private readonly everywhere: LocalEventBus;
  private readonly instance = randomUUID();
  private readonly channel: string;
  private closed = false;

  private constructor(
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    prefix: string,
    private readonly logger: Logger,
  ) {
    const onListenerError = (error: unknown): void => logger.error({ err: error }, 'event listener failed');
    this.here = new LocalEventBus(onListenerError);
    this.everywhere = new LocalEventBus(onListenerError);
    this.channel = `${prefix}events`;
  }

  /**
   * Connects both connections (a subscribed Redis connection can do nothing else) and subscribes.
   * Until then a failure ends the attempt with the reason Redis gave (refused, a wrong password),
   * leaving nothing open; once connected, a lost connection is retried for as long as it takes.
   */
  static async connect(url: string, prefix: string, logger: Logger): Promise<RedisEventBus> {
    let connected = false;
    const options = {
      maxRetriesPerRequest: 2,
      enableOfflineQueue: false,
      lazyConnect: true,
      // ioredis's own default once connected; null: give up.
      retryStrategy: (times: number) => (connected ? Math.min(times * 50, 2000) : null),
    };
    const publisher = new Redis(url, options);
    const subscriber = new Redis(url, { ...options, enableOfflineQueue: true });
    const bus = new RedisEventBus(publisher, subscriber, prefix, logger);
    let firstError: Error | undefined;
    for (const connection of [publisher, subscriber])
      connection.on('error', (error: Error) => {
        firstError ??= error;
        if (connected) logger.warn({ err: error }, 'event bus: Redis error');
      });
    try {
      await Promise.all([publisher.connect(), subscriber.connect()]);
      subscriber.on('message', (_channel: string, message: string) => bus.receive(message));
      // ioredis subscribes again by itself after a reconnection.
      await subscriber.subscribe(bus.channel);
      connected = true;
    } catch (error) {
      await Promise.all([closed(publisher), closed(subscriber)]);
      // ioredis rejects with "Connection is closed."; the reason is what it reported before.
      throw firstError ?? error;
    }
    return bus;
  }

  lockStateChanged(event: LockStateChanged): void {
    this.here.lockStateChanged(event);
    this.everywhere.lockStateChanged(event);
    this.publish('lock', event);
  }

  taskEnded(task: Task): void {
    this.here.taskEnded(task);
    this.everywhere.taskEnded(task);
    this.publish('task', task);
  }

  onLockStateChanged(listener: (event: LockStateChanged) => void, scope: EventScope = 'everywhere'): Cancel {
    return (scope === 'here' ? this.here : this.everywhere).onLockStateChanged(listener);
  }

  onTaskEnded(listener: (task: Task) => void, scope: EventScope = 'everywhere'): Cancel {
    return (scope === 'here' ? this.here : this.everywhere).onTaskEnded(listener);
  }

  /** Readiness: both connections up (the subscriber's cannot PING while subscribed: its status). */
  async ping(): Promise<void> {
    if (this.subscriber.status !== 'ready') throw new Error(`event subscriber ${this.subscriber.status}`);
    await this.publisher.ping();
  }

  /**
   * Redis away degrades, it does not stop the service: a v1 control waiting here for a device that
   * answered elsewhere waits for its deadline instead (http/ops.ts `critical`).
   */
  readinessChecks(): ReadinessCheck[] {
    return [{ name: 'events', critical: false, check: () => this.ping() }];
  }

  /**
   * Ends both connections at once (with Redis away, a graceful QUIT would wait for a reconnection)
   * and resolves once they are closed: nothing of the bus is left to hold the process. A closed bus
   * delivers nothing and shares nothing; announcing on it stays harmless.
   */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([this.here.close(), this.everywhere.close()]);
    await Promise.all([closed(this.subscriber), closed(this.publisher)]);
  }

  private publish(kind: Envelope['kind'], event: unknown): void {
    if (this.closed) return;
    const envelope: Envelope = { from: this.instance, kind, event };
    this.publisher.publish(this.channel, JSON.stringify(envelope)).catch((error: unknown) => {
      this.logger.warn({ err: error, kind }, 'event bus: an event was not shared with the other processes');
    });
  }

  private receive(message: string): void {
    let envelope: unknown;
    try {
      envelope = JSON.parse(message);
    } catch {
      this.logger.warn({}, 'event bus: a message that is not JSON dropped');
      return;
    }
    if (!isObject(envelope) || envelope.from === this.instance) return;
    if (envelope.kind === 'lock' && isLockStateChanged(envelope.event))
      this.everywhere.lockStateChanged(envelope.event);
    else if (envelope.kind === 'task' && isTask(envelope.event)) this.everywhere.taskEnded(envelope.event);
    else this.logger.warn({ kind: envelope.kind }, 'event bus: an event of an unknown shape dropped');
  }
}
