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
    || coalesce(' ' || (p->>'Device'), '')
    || coalesce(' rows=' || (p->>'Plan Rows'), '');
  IF p->'Plans' IS NOT NULL THEN
    FOR c IN SELECT * FROM json_array_elements(p->'Plans') LOOP
      parts := parts || plan_nodes(c);
    END LOOP;
    s := s || '[' || array_to_string(parts, ', ') || ']';
  END IF;
  RETURN s;
END $$;
-- q under the planner's choice, row by row (batch join off), the batch join
-- forced (nested loops off) on the device the planner picks, and forced on
-- the CPU and on the GPU (where there is one); each form's plan and best
-- time. The verdict of the case goes to cm_verdict (plan_verdict).
CREATE OR REPLACE FUNCTION compare_plans(label text, q text, reps int DEFAULT 3)
RETURNS TABLE (label_ text, form text, ms numeric, plan text) LANGUAGE plpgsql AS $$
DECLARE
  gpus int;
  t_chosen numeric; t_nl numeric; t_batch numeric; t_cpu numeric; t_gpu numeric; t_warm numeric;
  p_chosen text; p_warm text;
BEGIN
  SET LOCAL max_parallel_workers_per_gather = 0;
  label_ := label;
  -- planned before anything here sets the GPU up, as a fresh backend's first query
  form := 'chosen'; plan := plan_line(q); ms := round(tms(q, reps)::numeric, 1); RETURN NEXT;
  t_chosen := ms; p_chosen := plan;
  gpus := coalesce((SELECT i.gpus FROM exactgpu_device_info() i), 0);
  SET LOCAL exactgpu.enable_batch_join = off;
  form := 'rowbyrow'; plan := plan_line(q); ms := round(tms(q, reps)::numeric, 1); RETURN NEXT;
  t_nl := ms;
  SET LOCAL exactgpu.enable_batch_join = on; SET LOCAL enable_nestloop = off;
  form := 'batch'; plan := plan_line(q); ms := round(tms(q, reps)::numeric, 1); RETURN NEXT;
  t_batch := ms;
  SET LOCAL exactgpu.device = 'cpu';
  form := 'batch, cpu'; plan := plan_line(q); ms := round(tms(q, reps)::numeric, 1); RETURN NEXT;
  t_cpu := ms;
  IF gpus > 0 THEN
    SET LOCAL exactgpu.device = 'gpu';
    form := 'batch, gpu'; plan := plan_line(q); ms := round(tms(q, reps)::numeric, 1); RETURN NEXT;
    t_gpu := ms;
    -- the planner's pick again, now that this backend has set its GPU up
    SET LOCAL exactgpu.device = 'auto'; SET LOCAL enable_nestloop = on;
    form := 'chosen, GPU set up'; plan := plan_line(q); ms := round(tms(q, reps)::numeric, 1); RETURN NEXT;
    t_warm := ms; p_warm := plan;
  END IF;
  CREATE TEMP TABLE IF NOT EXISTS cm_verdict (label text, picked text, cost text, chosen_ms numeric,
    nl_ms numeric, batch_ms numeric, cpu_ms numeric, gpu_ms numeric, warm text);
  INSERT INTO cm_verdict VALUES (label,
    CASE WHEN p_chosen LIKE '% ExactJoin %' THEN 'batch ' || substring(p_chosen FROM 'ExactJoin (CPU|GPU)')
      ELSE 'nested loop' END,
    split_part(p_chosen, ' ', 1), t_chosen, t_nl, t_batch, t_cpu, t_gpu,
    CASE WHEN p_warm IS NULL THEN ''
      ELSE CASE WHEN p_warm LIKE '% ExactJoin %' THEN 'batch ' || substring(p_warm FROM 'ExactJoin (CPU|GPU)')
        ELSE 'nested loop' END || format(' (%s ms)', t_warm) END);
END $$;
-- One markdown row a case: the plan picked against the faster of the two
-- plans measured (the batch join on the device the planner would give it);
-- within 10% is a tie. The CPU and GPU times of the batch join say whether
-- its device was the right one.
CREATE OR REPLACE FUNCTION plan_verdict() RETURNS SETOF text LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY SELECT format('| %s | %s (%s) | %s | %s | %s | %s | %s | %s | %s | %s |', label, picked, cost,
    chosen_ms, nl_ms, batch_ms, cpu_ms, coalesce(gpu_ms::text, ''),
    CASE WHEN least(nl_ms, batch_ms) >= 0.9 * greatest(nl_ms, batch_ms) THEN 'tie'
      WHEN nl_ms < batch_ms THEN 'nested loop' ELSE 'batch' END,
    CASE WHEN least(nl_ms, batch_ms) >= 0.9 * greatest(nl_ms, batch_ms) THEN 'right (tie)'
      WHEN (picked = 'nested loop') = (nl_ms < batch_ms) THEN 'right'
      ELSE format('**wrong** (%sx)', round(greatest(nl_ms, batch_ms) / greatest(least(nl_ms, batch_ms), 0.01), 1)) END,
    warm)
  FROM cm_verdict;
  DELETE FROM cm_verdict;
END $$;
