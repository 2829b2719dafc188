/**
 * The sweep of expired memberships (behaviour §11). A membership counts as none from its
 * `expires_at` on whether or not the sweep has run (memberships.ts, `unexpired`); the sweep removes the
 * rows left behind and records `member.expired` for each, which also ends the member's event
 * subscriptions (events.service.ts, `revokesAccess`).
 *
 * Every instance sweeps, every SWEEP_INTERVAL_MS plus a jitter, reading expired memberships through
 * their index a batch at a time. Each removal is a change of its own organization, which takes the
 * organization's row first and reads the membership again under that lock: of two instances that
 * found the same row, the second finds it gone (or renewed meanwhile) and does nothing, so each
 * expiry is removed and recorded once.
 */
import { personActor, takeOrganization } from '../../platform/organization-changes.ts';
import type { Db } from '../../platform/database/transaction.ts';
import { expiredMembershipBatch, lapsedMembershipOf } from './members.queries.ts';
import { removeLapsedMembership } from './members.service.ts';

/** How often each instance sweeps, unless told otherwise (tests are). */
export const SWEEP_INTERVAL_MS = 15_000;
/** Expired memberships read per statement, then removed one by one. */
const BATCH_SIZE = 100;

/** The organization was deleted meanwhile, and its memberships with it. */
class OrganizationGone extends Error {}

/** Removes one expired membership, if it is still there and still expired once its organization is taken. */
async function removeExpired(db: Db, organizationId: string, userId: string): Promise<void> {
  try {
    await db.transaction(
      async (tx) => {
        // The member is the actor: nobody removed them, their membership ended when it was given to.
        const change = takeOrganization(tx, organizationId, personActor(userId), () => new OrganizationGone());
        const row = await lapsedMembershipOf(tx, organizationId, userId);
        if (!row?.expires_at || row.role === 'owner') return;
        await removeLapsedMembership(tx, change, { userId, role: row.role, expiresAt: row.expires_at });
      },
      { organizationId },
    );
  } catch (error) {
    if (!(error instanceof OrganizationGone)) throw error;
  }
}

/** One sweep: batches until none is full, or until the sweep is stopped. */
async function sweep(db: Db, stopped: AbortSignal): Promise<void> {
  for (;;) {
    const batch = await expiredMembershipBatch(db, BATCH_SIZE);
    for (const { organization_id, user_id } of batch) {
      if (stopped.aborted) return;
      await removeExpired(db, organization_id, user_id);
    }
    if (batch.length < BATCH_SIZE) return;
  }
}

export interface ExpirySweepOptions {
  /** Between two sweeps, before the jitter; SWEEP_INTERVAL_MS unless a test says otherwise. */
  intervalMs?: number;
  /** Told when a sweep fails; the next one tries again. */
  onFailure: (error: unknown) => void;
}

/** Sweeps expired memberships until the function returned is called; it resolves once a sweep under way ends. */
export function sweepExpiredMemberships(
  db: Db,
  { intervalMs = SWEEP_INTERVAL_MS, onFailure }: ExpirySweepOptions,
): () => Promise<void> {
  const stopping = new AbortController();
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    // Up to a quarter more: instances started together do not sweep in step.
    const delay = intervalMs * (1 + Math.random() / 4);
    timer = setTimeout(() => {
      running = sweep(db, stopping.signal)
        .catch(onFailure)
        .finally(() => {
          if (!stopping.signal.aborted) schedule();
        });
    }, delay).unref();
  };
  schedule();
  return async () => {
    stopping.abort();
    clearTimeout(timer);
    await running;
  };
}
