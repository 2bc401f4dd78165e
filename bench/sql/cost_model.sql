-- Helpers for bench/sql/cost_model.sh: time a query, print its plan in one
-- line, and run it under the planner's choice, the batch join forced
-- (nested loops off) and row by row (exactgpu.enable_batch_join off).
CREATE OR REPLACE FUNCTION tms(q text, reps int DEFAULT 3) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; r float8 := 1e30; n bigint;
BEGIN
  FOR i IN 1..reps LOOP
    t0 := clock_timestamp();
    EXECUTE 'SELECT count(*) FROM (' || q || ') s' INTO n;
    r := least(r, extract(epoch FROM clock_timestamp() - t0) * 1000);
  END LOOP;
  RETURN r;
END $$;
-- the plan in one line: node types (with relation), and the total cost
CREATE OR REPLACE FUNCTION plan_line(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE j json; 
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
  RETURN round((j->0->'Plan'->>'Total Cost')::numeric) || ' ' || plan_nodes(j->0->'Plan');
END $$;
CREATE OR REPLACE FUNCTION plan_nodes(p json) RETURNS text LANGUAGE plpgsql AS $$
DECLARE s text; c json; parts text[] := '{}';
BEGIN
  s := coalesce(p->>'Custom Plan Provider', p->>'Node Type') || coalesce('(' || (p->>'Alias') || ')', '')
    || coalesce(' rows=' || (p->>'Plan Rows'), '');
  IF p->'Plans' IS NOT NULL THEN
    FOR c IN SELECT * FROM json_array_elements(p->'Plans') LOOP
      parts := parts || plan_nodes(c);
    END LOOP;
    s := s || '[' || array_to_string(parts, ', ') || ']';
  END IF;
  RETURN s;
END $$;
-- q under three settings: the planner's choice, batch forced (nested loops off), row by row (batch join off)
CREATE OR REPLACE FUNCTION compare_plans(label text, q text, reps int DEFAULT 3)
RETURNS TABLE (label_ text, form text, ms numeric, plan text) LANGUAGE plpgsql AS $$
BEGIN
  SET LOCAL max_parallel_workers_per_gather = 0;
  label_ := label;
  form := 'chosen'; plan := plan_line(q); ms := round(tms(q, reps)::numeric, 1); RETURN NEXT;
  SET LOCAL enable_nestloop = off;
  form := 'batch'; plan := plan_line(q); ms := round(tms(q, reps)::numeric, 1); RETURN NEXT;
  SET LOCAL enable_nestloop = on; SET LOCAL exactgpu.enable_batch_join = off;
  form := 'rowbyrow'; plan := plan_line(q); ms := round(tms(q, reps)::numeric, 1); RETURN NEXT;
  SET LOCAL exactgpu.enable_batch_join = on;
END $$;
