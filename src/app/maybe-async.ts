/**
 * A value answered at once or later. The read path's per-request duties (the in-memory rate limits)
 * answer at once; awaiting them anyway costs a promise and a microtask each, a measurable part of a
 * cached read (issue 25). Shared backends (Redis) still answer through a promise.
 */
export type MaybePromise<T> = T | Promise<T>;

/** `next(value)`, at once when `value` is at hand, after it settles when it is a promise. */
export function andThen<T, U>(value: MaybePromise<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}
