/** The simulated devices the server runs itself, as the store keeps them between restarts. */
import type { TaskFailure } from './task.ts';

/**
 * The simulated device world run inside the server, persisted so a restart keeps the simulated locks
 * as they were. `responsive` is the lock being in its access point's reach; `accessPoint` its being
 * paired with it.
 */
export interface SimDeviceState {
  readonly deviceId: string;
  readonly apId: string;
  readonly serial: string;
  readonly nickname: string;
  readonly locked: boolean;
  readonly battery: number;
  readonly responsive: boolean;
  readonly accessPoint: boolean;
  readonly appOpen: boolean;
  readonly latencyMs: number;
  readonly failNext: TaskFailure | null;
}

/** A simulated access point's credentials, sealed by the SecretBox: it must present its secret. */
export interface SimAccessPoint {
  readonly id: string;
  readonly sealedSecret: string;
}
