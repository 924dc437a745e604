/**
 * Compile-time checks (npm run typecheck) that the public types src/index.ts declares for itself
 * (its declarations ship alone: scripts/build.mjs) say what the server and the SDK say: the seed
 * types are the seed schema's (src/app/seed/schema.ts) both ways; the sandbox controls take what
 * the SDK's LockcloudSandboxClient takes and answer what it answers. A drift is a type error here.
 */
import type {
  SandboxAccountChange as SdkAccountChange,
  SandboxAccountChanged as SdkAccountChanged,
  SandboxAddedLock as SdkAddedLock,
  SandboxClock as SdkClock,
  SandboxFailure as SdkFailure,
  SandboxLockChange as SdkLockChange,
  SandboxLockState as SdkLockState,
  SandboxMail as SdkMail,
  SandboxNewLock as SdkNewLock,
} from '../../sdk/src/index.ts';
import type { Seed } from '../../src/app/seed/schema.ts';
import type {
  LockcloudSeed,
  SandboxAccountChange,
  SandboxAccountChanged,
  SandboxAddedLock,
  SandboxClock,
  SandboxFailure,
  SandboxLockChange,
  SandboxLockState,
  SandboxMail,
  SandboxNewLock,
} from '../../src/index.ts';

/** Exactly the same type (not merely assignable either way). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Both ways assignable. */
type Mutual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type DeepWritable<T> = T extends readonly (infer U)[]
  ? DeepWritable<U>[]
  : T extends object
    ? { -readonly [K in keyof T]: DeepWritable<T[K]> }
    : T;
/** undefined stripped from optional properties, as the schema's Static type writes them. */
type Defined<T> = T extends readonly (infer U)[]
  ? Defined<U>[]
  : T extends object
    ? { [K in keyof T]: Defined<Exclude<T[K], undefined>> }
    : T;

function check<T extends true>(): T | undefined {
  return undefined;
}

/** The fields of a list's elements, optional or not. */
type Fields<T> = keyof Required<NonNullable<T> extends readonly (infer U)[] ? U : never>;
type SameFields<K extends keyof Seed> = Equal<Fields<LockcloudSeed[K]>, Fields<Seed[K]>>;

// The seed: what a seed file holds, both ways (the schema's arrays are mutable, its optionals
// without `| undefined`), and no field missing from either (an optional field left out would
// still be assignable).
check<Mutual<Defined<DeepWritable<LockcloudSeed>>, Seed>>();
check<Equal<keyof Required<LockcloudSeed>, keyof Required<Seed>>>();
check<SameFields<'accounts'>>();
check<SameFields<'api_keys'>>();
check<SameFields<'access_points'>>();
check<SameFields<'locks'>>();
check<SameFields<'webhooks'>>();

// The controls' inputs are the SDK's; their answers fit the SDK's types.
check<Equal<SandboxFailure, SdkFailure>>();
check<Equal<SandboxLockChange, SdkLockChange>>();
check<Equal<SandboxAccountChange, SdkAccountChange>>();
check<Equal<SandboxNewLock, SdkNewLock>>();
check<[SandboxAddedLock] extends [SdkAddedLock] ? true : false>();
check<Equal<keyof SandboxAddedLock, keyof SdkAddedLock>>();
// The server answers only the failures it can be told (the SDK types the field as any task failure).
check<[SandboxLockState] extends [SdkLockState] ? true : false>();
check<Equal<keyof SandboxLockState, keyof SdkLockState>>();
check<Equal<SandboxClock, SdkClock>>();
check<Equal<SandboxAccountChanged, SdkAccountChanged>>();
check<Equal<SandboxMail, SdkMail>>();
