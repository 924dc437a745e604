/**
 * Payload version 1 of the device protocol (docs/device-protocol.md), written once as schemas: both
 * sides validate on receipt through the codec, so a malformed message is refused at the edge and
 * never reaches the use cases. Unknown fields are ignored (a device may send more than it must).
 * A later version is a file like this one beside it, added to the codec's catalogue (codec.ts).
 */
import { type Static, Type } from 'typebox';

const V = Type.Literal(1);
const DeviceId = Type.String({
  pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$',
});
const Seq = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });
const Epoch = Type.String({ minLength: 1, maxLength: 64 });
const Battery = Type.Integer({ minimum: 0, maximum: 100 });

export const DeviceState = Type.Object({
  locked: Type.Boolean(),
  battery: Battery,
  /** The lock is within the access point's Bluetooth reach. */
  reachable: Type.Boolean(),
  /** The owner's app holds the lock's one Bluetooth connection. */
  app_open: Type.Boolean(),
});
export type DeviceState = Static<typeof DeviceState>;

export const StatusMessage = Type.Object({
  v: V,
  online: Type.Boolean(),
  fw: Type.Optional(Type.String({ maxLength: 64 })),
});
export type StatusMessage = Static<typeof StatusMessage>;

export const PairedLock = Type.Object({
  device_id: DeviceId,
  serial: Type.String({ minLength: 1, maxLength: 64 }),
  nickname: Type.String({ minLength: 1, maxLength: 128 }),
});
export type PairedLock = Static<typeof PairedLock>;

/** The most locks one access point may list: the broker keeps retained state for these only. */
export const MAX_PAIRED_LOCKS = 1000;

/** The locks paired with the access point now: the whole list every time (retained). */
export const LocksMessage = Type.Object({
  v: V,
  locks: Type.Array(PairedLock, { maxItems: MAX_PAIRED_LOCKS }),
});
export type LocksMessage = Static<typeof LocksMessage>;

export const StateMessage = Type.Object({
  v: V,
  seq: Seq,
  epoch: Type.Optional(Epoch),
  ...DeviceState.properties,
  at: Type.Optional(Type.String({ maxLength: 40 })),
});
export type StateMessage = Static<typeof StateMessage>;

export const Command = Type.Union([Type.Literal('lock'), Type.Literal('unlock'), Type.Literal('sync')]);

export const CommandMessage = Type.Object({
  v: V,
  task_id: Type.String({ minLength: 1, maxLength: 64 }),
  command: Command,
  /** ISO 8601: the access point drops a command that arrives after this. */
  deadline: Type.String({ maxLength: 40 }),
});
export type CommandMessage = Static<typeof CommandMessage>;

/** The failures a device can know; TIMEOUT is the cloud's to decide. */
export const DeviceFailure = Type.Union([
  Type.Literal('JAMMED'),
  Type.Literal('DEVICE_IS_BUSY'),
  Type.Literal('LOW_BATTERY'),
  Type.Literal('DEVICE_UNREACHABLE'),
]);
export type DeviceFailure = Static<typeof DeviceFailure>;

export const AckMessage = Type.Object({
  v: V,
  task_id: Type.String({ minLength: 1, maxLength: 64 }),
  seq: Seq,
  epoch: Type.Optional(Epoch),
  ok: Type.Boolean(),
  error: Type.Optional(DeviceFailure),
  state: Type.Optional(DeviceState),
});
export type AckMessage = Static<typeof AckMessage>;

const FailNext = Type.Union([
  Type.Literal('JAMMED'),
  Type.Literal('TIMEOUT'),
  Type.Literal('DEVICE_UNREACHABLE'),
  Type.Literal('DEVICE_IS_BUSY'),
  Type.Literal('LOW_BATTERY'),
  Type.Null(),
]);

/** What a simulated device lets the sandbox change (docs/device-protocol.md, relayed by the cloud). */
export const SimChange = Type.Object({
  locked: Type.Optional(Type.Boolean()),
  battery: Type.Optional(Battery),
  reachable: Type.Optional(Type.Boolean()),
  paired: Type.Optional(Type.Boolean()),
  app_open: Type.Optional(Type.Boolean()),
  latency_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 600_000 })),
  fail_next: Type.Optional(FailNext),
});
export type SimChange = Static<typeof SimChange>;

export const SimMessage = Type.Object({
  v: V,
  req_id: Type.String({ minLength: 1, maxLength: 64 }),
  change: SimChange,
});
export type SimMessage = Static<typeof SimMessage>;

export const SimLockState = Type.Object({
  ...DeviceState.properties,
  paired: Type.Boolean(),
  latency_ms: Type.Integer({ minimum: 0 }),
  fail_next: FailNext,
});
export type SimLockState = Static<typeof SimLockState>;

/** A simulated device's answer to a sandbox change, sent after the state report it caused. */
export const SimAckMessage = Type.Object({
  v: V,
  req_id: Type.String({ minLength: 1, maxLength: 64 }),
  sim: SimLockState,
});
export type SimAckMessage = Static<typeof SimAckMessage>;

/** Every message of version 1, by the kind its topic names (topics.ts). */
export const SCHEMAS = {
  status: StatusMessage,
  locks: LocksMessage,
  state: StateMessage,
  cmd: CommandMessage,
  ack: AckMessage,
  sim: SimMessage,
  'sim-ack': SimAckMessage,
};

export interface Messages {
  status: StatusMessage;
  locks: LocksMessage;
  state: StateMessage;
  cmd: CommandMessage;
  ack: AckMessage;
  sim: SimMessage;
  'sim-ack': SimAckMessage;
}
