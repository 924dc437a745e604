import type { SimulatedAccessPoint } from './access-point.ts';
import type { Fleet } from './fleet.ts';

export interface Behaviour {
  /** Hand turns per lock per hour (on average; Poisson). */
  readonly turnsPerHour: number;
  /** Times per access point per hour it loses power (on average). */
  readonly offlinePerHour: number;
  /** How long it stays off before it comes back. */
  readonly offlineSeconds: number;
  /** Times per lock per hour someone opens its door (on average), on version-2 access points. */
  readonly doorsPerHour?: number;
  /** How long a door opened so stays open. */
  readonly doorOpenSeconds?: number;
  /** How long a jammed lock waits before someone frees it by hand (0: never). */
  readonly jamClearSeconds?: number;
}

/** A small seeded generator (mulberry32): the same --random-seed gives the same run of events. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TICK_MS = 1000;

/**
 * The world around the simulated devices, once a second of real time: people turning locks by hand,
 * access points losing power and coming back. Returns how to stop it.
 */
export function runBehaviour(fleet: Fleet, behaviour: Behaviour, random: () => number): () => void {
  const turnChance = behaviour.turnsPerHour / 3600;
  const doorChance = (behaviour.doorsPerHour ?? 0) / 3600;
  const { doorOpenSeconds = 30, jamClearSeconds = 0 } = behaviour;
  /** Ticks left before a door closes again, or a jammed lock is freed, by lock. */
  const doorsOpen = new Map<string, number>();
  const jams = new Map<string, number>();
  const offlineChance = behaviour.offlinePerHour / 3600;
  const off = new Set<string>();
  const timers = new Set<NodeJS.Timeout>();
  /** Doors opened and closed by hand, and jams freed by hand (version-2 access points). */
  const people = (ap: SimulatedAccessPoint): void => {
    for (const deviceId of ap.lockIds()) {
      const lock = ap.lock(deviceId);
      if (!lock?.accessPoint || !lock.responsive) continue;
      const closesIn = doorsOpen.get(deviceId);
      if (closesIn !== undefined) {
        if (closesIn <= 1) {
          doorsOpen.delete(deviceId);
          void ap.changeLock(deviceId, { door: 'closed' });
        } else doorsOpen.set(deviceId, closesIn - 1);
      } else if (lock.door === 'closed' && doorChance > 0 && random() < doorChance) {
        doorsOpen.set(deviceId, Math.max(1, Math.round((doorOpenSeconds * 1000) / TICK_MS)));
        void ap.changeLock(deviceId, { door: 'open' });
      }
      if (jamClearSeconds <= 0) continue;
      const freedIn = jams.get(deviceId);
      if (!lock.jammed) jams.delete(deviceId);
      else if (freedIn === undefined)
        jams.set(deviceId, Math.max(1, Math.round((jamClearSeconds * 1000) / TICK_MS)));
      else if (freedIn <= 1) {
        jams.delete(deviceId);
        // Turned by hand to where it stood: the bolt is free again.
        void ap.changeLock(deviceId, { locked: lock.locked });
      } else jams.set(deviceId, freedIn - 1);
    }
  };
  const tick = setInterval(() => {
    for (const ap of fleet.accessPoints()) {
      if (off.has(ap.id)) continue;
      if (offlineChance > 0 && random() < offlineChance) {
        off.add(ap.id);
        ap.kill();
        const back = setTimeout(() => {
          timers.delete(back);
          off.delete(ap.id);
          void ap.start().catch(() => undefined);
        }, behaviour.offlineSeconds * 1000);
        timers.add(back);
        continue;
      }
      if (ap.health) people(ap);
      if (turnChance === 0) continue;
      for (const deviceId of ap.lockIds()) {
        const lock = ap.lock(deviceId);
        if (lock?.accessPoint && lock.responsive && random() < turnChance) {
          void ap.changeLock(deviceId, { locked: !lock.locked });
        }
      }
    }
  }, TICK_MS);
  return () => {
    clearInterval(tick);
    for (const timer of timers) clearTimeout(timer);
  };
}
