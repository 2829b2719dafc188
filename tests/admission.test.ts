/** server/platform/database/admission.ts: how many changes of one organization run at once, and which may wait for its lock. */
import { describe, expect, it } from 'vitest';
import { Admission } from '../server/platform/database/admission.ts';

/** A change that records whether it may wait for the lock, then holds its attempt until released. */
function heldChange(
  admission: Admission,
  organizationId: string,
  log: Array<[string, boolean]>,
  name: string,
  waitMs = 5000,
) {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const deadline = Date.now() + waitMs;
  const done = admission.inTurn(organizationId, deadline, (turn) =>
    admission.withWriteSlot(turn, deadline, async (waitsForLock) => {
      log.push([name, waitsForLock]);
      await held;
    }),
  );
  return { release, done };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('admission of organization changes', () => {
  it('lets two changes of one organization under way, the second queued on the lock, the third after', async () => {
    const admission = new Admission({ writeSlots: 8, changesPerOrganization: 2 });
    const log: Array<[string, boolean]> = [];
    const [first, second, third] = ['first', 'second', 'third'].map((name) => heldChange(admission, 'org', log, name));
    await settle();
    expect(log).toEqual([
      ['first', false],
      ['second', true],
    ]);
    first!.release();
    await first!.done;
    await settle();
    // The second is still under way: the third may queue behind it.
    expect(log.at(-1)).toEqual(['third', true]);
    second!.release();
    third!.release();
    await Promise.all([second!.done, third!.done]);
  });

  it('runs one change of an organization at a time when told to, never waiting for the lock', async () => {
    const admission = new Admission({ writeSlots: 8, changesPerOrganization: 1 });
    const log: Array<[string, boolean]> = [];
    const changes = ['first', 'second'].map((name) => heldChange(admission, 'org', log, name));
    await settle();
    expect(log).toEqual([['first', false]]);
    changes[0]!.release();
    await settle();
    expect(log).toEqual([
      ['first', false],
      ['second', false],
    ]);
    changes[1]!.release();
    await Promise.all(changes.map((change) => change.done));
  });

  it('lets at most half the write slots wait for a lock; the rest take locks without waiting', async () => {
    const admission = new Admission({ writeSlots: 4, changesPerOrganization: 2 });
    const log: Array<[string, boolean]> = [];
    const changes = ['a', 'b', 'c'].flatMap((organization) =>
      [1, 2].map((index) => heldChange(admission, organization, log, `${organization}${index}`)),
    );
    await settle();
    // Four write slots: a1, a2 (waits), b1, b2 (waits); two waiters is half of four, so c waits for a slot.
    expect(log).toEqual([
      ['a1', false],
      ['a2', true],
      ['b1', false],
      ['b2', true],
    ]);
    changes[0]!.release(); // a1 done: its slot goes to c1, which takes its lock at once
    await settle();
    expect(log.at(-1)).toEqual(['c1', false]);
    changes[2]!.release(); // b1 done: c2 is behind c1, but two changes already wait for locks
    await settle();
    expect(log.at(-1)).toEqual(['c2', false]);
    for (const change of changes) change.release();
    await Promise.all(changes.map((change) => change.done));
  });

  it('ends a wait for its turn or a write slot at the deadline with 503, and serves the next in line after', async () => {
    const admission = new Admission({ writeSlots: 1, changesPerOrganization: 1 });
    const log: Array<[string, boolean]> = [];
    const holder = heldChange(admission, 'org', log, 'holder');
    const sameOrganization = heldChange(admission, 'org', log, 'same organization', 50);
    const otherOrganization = heldChange(admission, 'other', log, 'other organization', 50);
    const patient = heldChange(admission, 'third', log, 'patient');
    for (const gaveUp of [sameOrganization, otherOrganization]) {
      await expect(gaveUp.done).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    }
    expect(log).toEqual([['holder', false]]);
    holder.release();
    await holder.done;
    await settle();
    expect(log.at(-1)).toEqual(['patient', false]);
    patient.release();
    await patient.done;
  });
});
