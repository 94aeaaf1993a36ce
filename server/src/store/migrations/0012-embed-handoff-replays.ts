// Frozen: what this migration runs, statement by statement, per dialect. Never edit a released
// migration (a fresh store must get exactly what every running store got); add the next one.
/**
 * `embed_handoffs.replayed_at`: when a used code was first presented again. A replay ends the
 * session the first redemption started; one that came while that redemption was still issuing
 * its session found no session to end, and the session lived on. Now the replay marks the row,
 * and the redemption, recording its session, sees the mark and ends the session itself
 * (store/embed-handoffs.ts): whichever of the two writes the row second ends it.
 */
export const embedHandoffReplays = {
  sqlite: [`alter table "embed_handoffs" add column "replayed_at" text`],
  postgres: [`alter table "embed_handoffs" add column "replayed_at" text`],
};
