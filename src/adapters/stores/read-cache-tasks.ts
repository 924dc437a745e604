import type { TaskStore } from '../../app/ports.ts';
import type { Task } from '../../domain/task.ts';
import type { BoundedMap } from './read-cache-maps.ts';

/**
 * The tasks part of the read cache (read-cache.ts): a client polls a command's result until it
 * ends, several times a command. Every write of a task through this store answers the task as
 * stored (RETURNING), and that is what is kept; a write that answers nothing about a task it may
 * have changed drops it. A commit by another process drops them all (the read cache's check).
 */
export function cachedTasks(
  tasks: TaskStore,
  cache: BoundedMap<Task>,
  /** A task read through the cache, as the read cache checks it against other processes' commits. */
  readThrough: (id: string) => Task | Promise<Task | undefined>,
): TaskStore {
  const keepAll = (ended: readonly Task[]): void => {
    for (const task of ended) cache.put(task.id, task);
  };
  return {
    async createProcessing(task, made) {
      try {
        const result = await tasks.createProcessing(task, made);
        if (result.created) cache.put(task.id, result.task);
        return result;
      } catch (error) {
        cache.delete(task.id);
        throw error;
      }
    },
    get: async (id) => readThrough(id),
    processingOn: (deviceId) => tasks.processingOn(deviceId),
    async terminate(id, outcome, at, events) {
      try {
        const ended = await tasks.terminate(id, outcome, at, events);
        // Undefined: it had ended already, and what is kept (if anything) is that end.
        if (ended) cache.put(id, ended);
        return ended;
      } catch (error) {
        cache.delete(id);
        throw error;
      }
    },
    // The bulk endings answer every task they ended; on a failure nothing was committed.
    async terminateOverdue(now, error, events) {
      const ended = await tasks.terminateOverdue(now, error, events);
      keepAll(ended);
      return ended;
    },
    async terminateProcessingOf(deviceIds, now, error, events) {
      const ended = await tasks.terminateProcessingOf(deviceIds, now, error, events);
      keepAll(ended);
      return ended;
    },
    async terminateAllProcessing(now, error, events) {
      const ended = await tasks.terminateAllProcessing(now, error, events);
      keepAll(ended);
      return ended;
    },
    async purgeEndedBefore(cutoff) {
      try {
        return await tasks.purgeEndedBefore(cutoff);
      } finally {
        cache.clear();
      }
    },
  };
}
