/** checkFields: every wrong field of a form in one refusal, the first on top (issue 20, point 2). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkFields, DomainError } from '../../../src/domain/errors.ts';

const wrong = (field: string, message: string) => () => {
  throw new DomainError('INVALID_INPUT', message, { field });
};

describe('checkFields', () => {
  it('answers every value when all pass', () => {
    assert.deepEqual(
      checkFields(
        () => 'a',
        () => 2,
      ),
      ['a', 2],
    );
  });

  it('throws one error alone as it is', () => {
    const error = new DomainError('INVALID_INPUT', 'bad e-mail', { field: 'email' });
    assert.throws(
      () =>
        checkFields(
          () => {
            throw error;
          },
          () => 'fine',
        ),
      (e: unknown) => e === error,
    );
  });

  it('carries every wrong field, the first one on top', () => {
    assert.throws(
      () => checkFields(wrong('email', 'bad e-mail'), () => 'ok', wrong('password', 'too short')),
      (e: unknown) =>
        e instanceof DomainError &&
        e.code === 'INVALID_INPUT' &&
        e.message === 'bad e-mail' &&
        e.details.field === 'email' &&
        JSON.stringify(e.details.fields) === JSON.stringify({ email: 'bad e-mail', password: 'too short' }),
    );
  });

  it('lets any other refusal through at once', () => {
    assert.throws(
      () =>
        checkFields(wrong('email', 'bad e-mail'), () => {
          throw new DomainError('THROTTLED');
        }),
      (e: unknown) => e instanceof DomainError && e.code === 'THROTTLED',
    );
  });
});
