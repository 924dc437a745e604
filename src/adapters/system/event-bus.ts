import { EventEmitter } from 'node:events';
import type { Cancel, EventBus, LockStateChanged } from '../../app/ports.ts';
import type { Task } from '../../domain/task.ts';

/**
 * In-process events, for a process alone on its store: 'here' and 'everywhere' are the same.
 * A listener that throws must not break the use case that emitted.
 */
export class LocalEventBus implements EventBus {
  private readonly emitter = new EventEmitter();
  private closed = false;

  constructor(private readonly onListenerError: (error: unknown) => void) {
    // v1 waits register one listener per request in flight.
    this.emitter.setMaxListeners(0);
  }

  lockStateChanged(event: LockStateChanged): void {
    this.emit('lock', event);
  }

  taskEnded(task: Task): void {
    this.emit('task', task);
  }

  onLockStateChanged(listener: (event: LockStateChanged) => void): Cancel {
    return this.on('lock', listener);
  }

  onTaskEnded(listener: (task: Task) => void): Cancel {
    return this.on('task', listener);
  }

  /**
   * Delivers nothing from now on (the listeners are dropped, later ones never hear); announcing
   * stays harmless, for a use case still finishing while the server stops.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.emitter.removeAllListeners();
  }

  private emit(name: string, payload: unknown): void {
    for (const listener of this.emitter.listeners(name)) {
      try {
        (listener as (p: unknown) => void)(payload);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }

  private on<T>(name: string, listener: (payload: T) => void): Cancel {
    if (this.closed) return () => undefined;
    this.emitter.on(name, listener);
    return () => this.emitter.off(name, listener);
  }
}
