// Frozen: what this migration runs, statement by statement, per dialect. Never edit a released
// migration (a fresh store must get exactly what every running store got); add the next one.
/**
 * `bk_api_key_counting_hit` (migration 0010) without the store version of organizations and
 * members: which tables the organization list is cached by is declared once, in the bridge
 * (store/organizations.ts), not copied into a function. The signature and columns stay, so an
 * instance of the previous version still running during a rollout keeps working: it finds
 * `storeVersion` null and reads the version itself. Nothing on SQLite.
 */
export const apiKeyHitWithoutVersion = {
  sqlite: [],
  postgres: [
    `create or replace function bk_api_key_counting_hit(text, text, bigint, text, bigint, int)
      returns table (id text, "userId" text, "expiresAt" text, "revokedAt" text,
        "lastUsedAt" text, "storeVersion" text, "hitPoints" int, "hitExpire" text)
      language plpgsql
      as $$
      #variable_conflict use_column
      begin
        return query
        with k as (
          select id, user_id as "userId", expires_at as "expiresAt", revoked_at as "revokedAt", last_used_at as "lastUsedAt" from api_keys where key_hash = $1
        ), hit as (
          insert into rate_limits (key, points, expire)
          select $2 || k.id, $6::int, $3::bigint from k
          where k."revokedAt" is null and (k."expiresAt" is null or k."expiresAt" > $4)
          on conflict (key) do update set
            points = case when rate_limits.expire <= $5::bigint then $6::int
              else rate_limits.points + $6::int end,
            expire = case when rate_limits.expire <= $5::bigint then $3::bigint else rate_limits.expire end
          returning points, expire
        )
        select k.*, null::text as "storeVersion",
          hit.points as "hitPoints", hit.expire::text as "hitExpire"
        from k left join hit on true;
      end $$`,
  ],
};
