// Frozen: what this migration runs, statement by statement, per dialect. Never edit a released
// migration (a fresh store must get exactly what every running store got); add the next one.
/**
 * `embed_origin_patterns`: one row per (pattern, organization) of every organization's
 * `embed_allowed_origins`, kept by triggers on `organizations` (a new row, a changed list; a
 * deleted organization's rows go by the foreign key's cascade), so that whatever writes an
 * organization, the bridge or the CLI, keeps it right.
 *
 * It answers "does any organization allow this origin" (a CORS preflight on a path that names
 * no organization) with one indexed lookup of the origin's few candidate patterns
 * (embed-origins/policy.ts). Before, the bridge read every organization's list into an
 * in-memory index, again after any write to any organization: with 110,000 organizations that
 * read and build took ~400 ms, on SQLite with the event loop stopped for all of it.
 */
export const embedOriginPatterns = {
  sqlite: [
    `create table "embed_origin_patterns" ("pattern" text not null, "organization_id" text not null references "organizations" ("id") on delete cascade, constraint "embed_origin_patterns_pk" primary key ("pattern", "organization_id"))`,
    `create index "embed_origin_patterns_organization" on "embed_origin_patterns" ("organization_id")`,
    `create trigger embed_origin_patterns_insert after insert on organizations
      begin insert or ignore into embed_origin_patterns (pattern, organization_id)
      select value, new.id from json_each(new.embed_allowed_origins); end`,
    `create trigger embed_origin_patterns_update
      after update of embed_allowed_origins on organizations
      when old.embed_allowed_origins is not new.embed_allowed_origins
      begin
        delete from embed_origin_patterns where organization_id = old.id;
        insert or ignore into embed_origin_patterns (pattern, organization_id)
      select value, new.id from json_each(new.embed_allowed_origins);
      end`,
    `insert or ignore into embed_origin_patterns (pattern, organization_id)
      select value, o.id from organizations o, json_each(o.embed_allowed_origins)`,
  ],
  postgres: [
    `create table "embed_origin_patterns" ("pattern" text not null collate "C", "organization_id" text not null references "organizations" ("id") on delete cascade collate "C", constraint "embed_origin_patterns_pk" primary key ("pattern", "organization_id"))`,
    `create index "embed_origin_patterns_organization" on "embed_origin_patterns" ("organization_id")`,
    `create function bk_index_embed_origins() returns trigger
        language plpgsql as $$
        begin
          if tg_op = 'UPDATE' then
            delete from embed_origin_patterns where organization_id = old.id;
          end if;
          insert into embed_origin_patterns (pattern, organization_id)
            select p, new.id from json_array_elements_text(new.embed_allowed_origins::json) as p
            on conflict do nothing;
          return null;
        end $$`,
    `create trigger embed_origin_patterns_insert after insert on organizations
        for each row execute function bk_index_embed_origins()`,
    `create trigger embed_origin_patterns_update
        after update of embed_allowed_origins on organizations for each row
        when (old.embed_allowed_origins is distinct from new.embed_allowed_origins)
        execute function bk_index_embed_origins()`,
    `insert into embed_origin_patterns (pattern, organization_id)
        select p, o.id from organizations o,
          json_array_elements_text(o.embed_allowed_origins::json) as p
        on conflict do nothing`,
  ],
};
