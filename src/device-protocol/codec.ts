/**
 * Reads and writes the device protocol's payloads (docs/device-protocol.md). The version is part of
 * every message (`v`) and of the codec: a payload is checked against the schemas of the version it
 * names, so one decoder accepts every version this build knows, and a message's type is the union
 * of its versions, told apart by `v`. Pure: no I/O, nothing of MQTT.
 */
import type { TSchema } from 'typebox';
import { Compile, type Validator } from 'typebox/compile';
import * as v1 from './v1.ts';
import * as v2 from './v2.ts';
import { isPayloadVersion, PAYLOAD_VERSIONS, type PayloadVersion } from './versions.ts';

/** Every version's messages, by kind. A new version adds a row here and a file beside v1.ts. */
interface Catalogue {
  1: v1.Messages;
  2: v2.Messages;
}

/** Every kind of any version (a later version may add kinds: `config` came with version 2). */
export type MessageKind = keyof v2.Messages;
/** A message of this kind, in any version this build knows that has it (or in the one named). */
export type Message<K extends MessageKind, V extends PayloadVersion = PayloadVersion> = V extends V
  ? K extends keyof Catalogue[V]
    ? Catalogue[V][K]
    : never
  : never;

export type Decoded<K extends MessageKind> =
  | { readonly ok: true; readonly message: Message<K> }
  | { readonly ok: false; readonly problem: string };

/** The largest payload of any message: a larger one is refused unread (and by the broker, unstored). */
export const MAX_PAYLOAD_BYTES = 256 * 1024;

/** A version's validators, by kind; a kind the version does not have has none. */
type Validators = { readonly [K in MessageKind]?: Validator };

/** One version's schemas, every kind it has. */
function compileAll(schemas: { readonly [K in MessageKind]?: TSchema }): Validators {
  const validators: { [K in MessageKind]?: Validator } = {};
  for (const [kind, schema] of Object.entries(schemas) as [MessageKind, TSchema][])
    validators[kind] = Compile(schema);
  return validators;
}

const VALIDATORS: { readonly [V in PayloadVersion]: Validators } = {
  1: compileAll(v1.SCHEMAS),
  2: compileAll(v2.SCHEMAS),
};
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Parses and checks one payload against the schemas of the version it names; says what is wrong. */
export function decode<K extends MessageKind>(kind: K, payload: Uint8Array): Decoded<K> {
  if (payload.byteLength > MAX_PAYLOAD_BYTES) return { ok: false, problem: 'payload too large' };
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(payload));
  } catch {
    return { ok: false, problem: 'payload is not JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, problem: 'payload: must be an object' };
  const version: unknown = (value as { v?: unknown }).v;
  if (!isPayloadVersion(version))
    return {
      ok: false,
      problem: `/v: version ${JSON.stringify(version) ?? 'missing'} is not one of ${PAYLOAD_VERSIONS.join(', ')}`,
    };
  const validator = VALIDATORS[version][kind];
  if (validator === undefined) return { ok: false, problem: `/v: version ${version} has no ${kind} message` };
  if (!validator.Check(value)) {
    const first = validator.Errors(value)[0];
    const where = first?.instancePath === '' ? 'payload' : (first?.instancePath ?? 'payload');
    return { ok: false, problem: `${where}: ${first?.message ?? 'does not match the schema'}` };
  }
  return { ok: true, message: value as Message<K> };
}

/** The payload of a message, in the version its `v` names. */
export function encode<K extends MessageKind>(_kind: K, message: Message<K>): string {
  return JSON.stringify(message);
}
