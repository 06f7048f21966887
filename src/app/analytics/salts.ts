// The salt readers are hashed under today (./readers.ts), kept in memory for the day and in the
// database for the other daemons and a restart; the first use of a new day (UTC) deletes the
// days before, so a hash cannot be traced back once its day is over.
import { randomBytes } from 'node:crypto';
import { forgetSaltsBefore, saltOfDay } from '../../state/analyticsSalts.ts';
import type { Store } from '../../store/store.ts';
import type { Clock } from '../clock.ts';

export const dailySalts = (store: Store, clock: Clock) => {
  let held: { day: string; salt: Promise<Buffer> } | null = null;
  return {
    /** Today's salt. */
    today: (): Promise<Buffer> => {
      const day = clock.now().toISOString().slice(0, 10);
      if (held?.day !== day) {
        const salt = (async () => {
          await forgetSaltsBefore(store.db, day);
          return saltOfDay(store.db, day, randomBytes(32));
        })();
        held = { day, salt };
        // A failure (the database away) is tried again by the next call, not kept.
        salt.catch(() => {
          if (held?.salt === salt) held = null;
        });
      }
      return held.salt;
    },
  };
};
