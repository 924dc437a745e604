import type { Fleet } from './fleet.ts';

export interface Behaviour {
  /** Hand turns per lock per hour (on average; Poisson). */
  readonly turnsPerHour: number;
  /** Times per access point per hour it loses power (on average). */
  readonly offlinePerHour: number;
  /** How long it stays off before it comes back. */
  readonly offlineSeconds: number;
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
  const offlineChance = behaviour.offlinePerHour / 3600;
  const off = new Set<string>();
  const timers = new Set<NodeJS.Timeout>();
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
