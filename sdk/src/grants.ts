/**
 * Grants (`/ext`, docs/locks.md "Grants"), reached through {@link LockcloudClient.grants}: the owner
 * invites an account by e-mail to a lock, edits or revokes the grant; the guest lists its
 * invitations, accepts or declines them, and lists its grants. Errors are the v3 classes, their
 * message the server's: `BadParamsError` (a bad field, named; an address with no account; a grant
 * no longer editable), `NotFoundError` (no such lock of the account, grant or invitation),
 * `UnauthorizedError`, `ThrottledError`.
 *
 * @example
 * const grant = await client.grants.invite(deviceId, { email: 'guest@example.com', role: 'view' });
 */
import type { Credential } from './credential.js';
import { type CallOptions, type Http, type KeyedSend, keyedSend, segment } from './http.js';
import type {
  GrantInvitation,
  GrantTerms,
  GuestGrant,
  GuestGrantList,
  InvitationList,
  OwnerGrant,
  OwnerGrantList,
} from './types-grants.js';

/**
 * Grants of locks, as {@link LockcloudClient.grants}.
 *
 * @example
 * for (const invitation of (await client.grants.invitations()).invitations) await client.grants.accept(invitation.id);
 */
export class GrantsApi {
  readonly #send: KeyedSend;

  /** Made by {@link LockcloudClient}; not exported as a value. */
  constructor(http: Http, credential: Credential) {
    this.#send = keyedSend(http, credential, '/ext');
  }

  /**
   * `GET /ext/locks/{device_id}/grants`: every grant of the owner's lock, in every state.
   *
   * @example
   * const pending = (await client.grants.list(deviceId)).grants.filter((g) => g.state === 'pending');
   */
  list(deviceId: string, options?: CallOptions): Promise<OwnerGrantList> {
    return this.#send('GET', `/locks/${segment(deviceId)}/grants`, options);
  }

  /**
   * `POST /ext/locks/{device_id}/grants`: invites the account at `email`; resolves to the pending grant.
   *
   * @example
   * await client.grants.invite(deviceId, { email: 'guest@example.com', role: 'operate', one_time: true });
   */
  invite(deviceId: string, invitation: GrantInvitation, options?: CallOptions): Promise<OwnerGrant> {
    return this.#send('POST', `/locks/${segment(deviceId)}/grants`, options, invitation);
  }

  /**
   * `PATCH /ext/locks/{device_id}/grants/{grant_id}`: changes the terms given; the state stays.
   *
   * @example
   * await client.grants.update(deviceId, grantId, { ends_at: '2030-01-01T00:00:00Z' });
   */
  update(deviceId: string, grantId: string, terms: GrantTerms, options?: CallOptions): Promise<OwnerGrant> {
    return this.#send('PATCH', `/locks/${segment(deviceId)}/grants/${segment(grantId)}`, options, terms);
  }

  /**
   * `DELETE /ext/locks/{device_id}/grants/{grant_id}`: revoked at once.
   *
   * @example
   * await client.grants.revoke(deviceId, grantId);
   */
  async revoke(deviceId: string, grantId: string, options?: CallOptions): Promise<void> {
    await this.#send('DELETE', `/locks/${segment(deviceId)}/grants/${segment(grantId)}`, options);
  }

  /**
   * `GET /ext/invitations`: the account's pending invitations.
   *
   * @example
   * const { invitations } = await client.grants.invitations();
   */
  invitations(options?: CallOptions): Promise<InvitationList> {
    return this.#send('GET', '/invitations', options);
  }

  /**
   * `POST /ext/invitations/{grant_id}/accept`: the lock appears in the account.
   *
   * @example
   * const grant = await client.grants.accept(grantId);
   */
  accept(grantId: string, options?: CallOptions): Promise<GuestGrant> {
    return this.#send('POST', `/invitations/${segment(grantId)}/accept`, options);
  }

  /**
   * `POST /ext/invitations/{grant_id}/decline`: declines an invitation, or gives back an accepted grant.
   *
   * @example
   * await client.grants.decline(grantId);
   */
  decline(grantId: string, options?: CallOptions): Promise<GuestGrant> {
    return this.#send('POST', `/invitations/${segment(grantId)}/decline`, options);
  }

  /**
   * `GET /ext/grants`: the account's accepted grants of other accounts' locks, and used one-time ones.
   *
   * @example
   * const { grants } = await client.grants.mine();
   */
  mine(options?: CallOptions): Promise<GuestGrantList> {
    return this.#send('GET', '/grants', options);
  }
}
