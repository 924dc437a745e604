/**
 * Payload version 2 of the device protocol (docs/device-protocol.md, "Version 2"): version 1's
 * messages with the health of the locks and of the access point added, all optional, and one new
 * kind, `config`, for a lock's settings the device carries out itself (auto-lock). A version-1
 * message means what it meant; an access point says in its status which versions it speaks.
 * Messages version 2 leaves as they were (the pairing list, commands) reuse version 1's shapes.
 */
import { type Static, Type } from 'typebox';
import * as v1 from './v1.ts';

const V = Type.Literal(2);
const Firmware = Type.String({ maxLength: 64 });
/** 0: off. An hour is the longest a lock waits before it relocks. */
export const MAX_AUTO_LOCK_SECONDS = 3600;
const AutoLockSeconds = Type.Integer({ minimum: 0, maximum: MAX_AUTO_LOCK_SECONDS });
const Door = Type.Union([Type.Literal('open'), Type.Literal('closed')]);

/** A lock's state, version 2: version 1's and what the lock knows of its own health. */
export const DeviceState = Type.Object({
  ...v1.DeviceState.properties,
  /** The bolt is blocked: it did not reach the end it was driven to. */
  jammed: Type.Optional(Type.Boolean()),
  /** The door sensor's reading; absent: the lock has no door sensor. */
  door: Type.Optional(Door),
  fw: Type.Optional(Firmware),
  /** The auto-lock delay the lock runs now (0: off). */
  auto_lock_seconds: Type.Optional(AutoLockSeconds),
});
export type DeviceState = Static<typeof DeviceState>;

export const StatusMessage = Type.Object({
  v: V,
  online: Type.Boolean(),
  fw: Type.Optional(Firmware),
  /** The Wi-Fi signal at the access point, in dBm. */
  rssi: Type.Optional(Type.Integer({ minimum: -127, maximum: 0 })),
  /** The payload versions the access point speaks; absent: 1 only. */
  versions: Type.Optional(
    Type.Array(Type.Integer({ minimum: 1, maximum: 1000 }), { minItems: 1, maxItems: 16 }),
  ),
});
export type StatusMessage = Static<typeof StatusMessage>;

export const LocksMessage = Type.Object({ ...v1.LocksMessage.properties, v: V });
export type LocksMessage = Static<typeof LocksMessage>;

/** Why a lock moved that no command moved; absent: by hand. */
export const Cause = Type.Union([Type.Literal('manual'), Type.Literal('auto')]);

export const StateMessage = Type.Object({
  ...v1.StateMessage.properties,
  ...DeviceState.properties,
  v: V,
  cause: Type.Optional(Cause),
});
export type StateMessage = Static<typeof StateMessage>;

export const CommandMessage = Type.Object({ ...v1.CommandMessage.properties, v: V });
export type CommandMessage = Static<typeof CommandMessage>;

export const AckMessage = Type.Object({
  ...v1.AckMessage.properties,
  v: V,
  state: Type.Optional(DeviceState),
});
export type AckMessage = Static<typeof AckMessage>;

/** A sandbox change, version 2: version 1's and the lock's health, which only a v2 device plays. */
export const SimChange = Type.Object({
  ...v1.SimChange.properties,
  /** null: the lock has no door sensor (any more). */
  door: Type.Optional(Type.Union([Door, Type.Null()])),
  jammed: Type.Optional(Type.Boolean()),
  fw: Type.Optional(Firmware),
});
export type SimChange = Static<typeof SimChange>;

export const SimMessage = Type.Object({ ...v1.SimMessage.properties, v: V, change: SimChange });
export type SimMessage = Static<typeof SimMessage>;

export const SimLockState = Type.Object({
  ...v1.SimLockState.properties,
  jammed: Type.Boolean(),
  door: Type.Union([Door, Type.Null()]),
  fw: Firmware,
  auto_lock_seconds: AutoLockSeconds,
});
export type SimLockState = Static<typeof SimLockState>;

export const SimAckMessage = Type.Object({ ...v1.SimAckMessage.properties, v: V, sim: SimLockState });
export type SimAckMessage = Static<typeof SimAckMessage>;

/** A lock's settings, cloud -> access point, for the lock to carry out itself (never retained). */
export const ConfigMessage = Type.Object({
  v: V,
  auto_lock_seconds: AutoLockSeconds,
});
export type ConfigMessage = Static<typeof ConfigMessage>;

/** Every message of version 2, by the kind its topic names (topics.ts). */
export const SCHEMAS = {
  status: StatusMessage,
  locks: LocksMessage,
  state: StateMessage,
  cmd: CommandMessage,
  ack: AckMessage,
  sim: SimMessage,
  'sim-ack': SimAckMessage,
  config: ConfigMessage,
};

export interface Messages {
  status: StatusMessage;
  locks: LocksMessage;
  state: StateMessage;
  cmd: CommandMessage;
  ack: AckMessage;
  sim: SimMessage;
  'sim-ack': SimAckMessage;
  config: ConfigMessage;
}
