import { Type } from 'typebox';

/**
 * The v1 wire format. Legacy clients send what they always sent: unknown fields are ignored, and
 * the field checks run in the use case so each failure gets its own v1 code (10000, 10001, 10005).
 */
export const LoginBody = Type.Object({
  email: Type.String({ minLength: 1, description: 'user e-mail' }),
  password: Type.String({ minLength: 1, description: 'user password' }),
});

export const LoginAnswer = Type.Object({
  authorization: Type.String({ description: 'auth token, to be sent in header X-Authorization' }),
});

export const LockIdParams = Type.Object({
  lockId: Type.String({ minLength: 1, description: 'lock device_id' }),
});

export const V1Lock = Type.Object({
  device_id: Type.String({ description: 'lock identifier' }),
  nickname: Type.String(),
  is_unlocked: Type.Boolean({ description: 'true = unlocked, false = locked' }),
  api_enabled: Type.Boolean({ description: 'paired with the access point and integration on' }),
  battery: Type.Integer({ description: 'battery status (a percentage)' }),
});

export const V1LockList = Type.Object({ locks: Type.Array(V1Lock) });

export const V1LockStatus = Type.Object({
  nickname: Type.String(),
  is_unlocked: Type.Boolean(),
  api_enabled: Type.Boolean(),
  battery: Type.Integer(),
});

export const ControlBody = Type.Object({
  type: Type.Union([Type.Literal('lock'), Type.Literal('unlock')]),
});

export const V1Error = Type.Object({ code: Type.Integer(), message: Type.String() });
