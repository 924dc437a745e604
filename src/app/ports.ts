/**
 * Every side effect the use cases need, as interfaces, one file per family under ports/: stores,
 * locks, grants, tasks, system, devices, webhooks, mail, events and ops. Adapters implement them; tests
 * and the composition root choose which. Nothing in them names a driver, a framework or a protocol. The entities they
 * carry (a delivery, a webhook's settings, a block) live in domain/.
 *
 * This file is the one index of them: a use case imports its ports from here.
 */
export type * from './ports/devices.ts';
export type * from './ports/events.ts';
export type * from './ports/grants.ts';
export type * from './ports/locks.ts';
export type * from './ports/mail.ts';
export type * from './ports/oauth.ts';
export type * from './ports/ops.ts';
export type * from './ports/stores.ts';
export type * from './ports/system.ts';
export type * from './ports/tasks.ts';
export type * from './ports/webhooks.ts';
