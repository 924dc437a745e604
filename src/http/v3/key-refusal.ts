import { DomainError } from '../../domain/errors.ts';
import { type KeyRefusal, keyRefusalError } from '../key-check.ts';

/**
 * v3's words for a key the route refuses, within its published table (docs/errors.md): an expired
 * key is 401 as an unknown one, a missing scope 403 ACCESS_DENY without Retry-After, and a lock
 * outside the key's list BAD_PARAMS, as a lock not the account's is.
 */
export function v3KeyRefusal(refusal: KeyRefusal): DomainError {
  return refusal.reason === 'lock_not_allowed' ? new DomainError('LOCK_NOT_FOUND') : keyRefusalError(refusal);
}
