-- ScaleStore's load: jobs g from the 7th parameter to the 8th of N. Job g is scheduled at
-- from + (g * 7919 mod N) / N of the span: spread evenly over the days and not in id order.
-- Statuses follow the time: the past is final (or, rarely, still RUNNING), the future PENDING;
-- failed jobs used all 3 attempts; tenant and type come from a hash. Parameters: the backoff
-- (JSON), now (ms), from (ms), N, the span (ms), N, the first g, the last g.
INSERT INTO jobs (id, scheduled_at, namespace, type, payload, priority, status, run_at,
                  attempt, max_attempts, backoff, tags, created_at, updated_at, started_at,
                  finished_at, heartbeat_at, worker_id, last_error, result, idempotency_key)
SELECT (lpad(to_hex(ms), 12, '0') || '7' || substr(h, 1, 3) || '8' || substr(h, 4, 15))::uuid,
       punctual_ms(ms), 'tenant-' || (('x' || substr(h, 20, 4))::bit(16)::int % 50),
       'type-' || (('x' || substr(h, 24, 4))::bit(16)::int % 20),
       jsonb_build_object('order', g, 'customer', 'c-' || (g % 1000)), (g % 4)::smallint, st,
       punctual_ms(CASE WHEN st = 'FAILED' THEN ms + 3000 ELSE ms END),
       CASE st WHEN 'PENDING' THEN 0 WHEN 'FAILED' THEN 3 ELSE 1 END, 3,
       CAST(? AS jsonb),
       CASE WHEN g % 10 = 0 THEN ARRAY['batch-' || (g % 1000)] ELSE '{}'::text[] END,
       punctual_ms(ms), punctual_ms(ms + 60),
       CASE WHEN st = 'PENDING' THEN NULL ELSE punctual_ms(ms) END,
       CASE WHEN st IN ('PENDING', 'RUNNING') THEN NULL ELSE punctual_ms(ms + 60) END,
       CASE WHEN st = 'RUNNING' THEN punctual_ms(ms + 1000) END,
       CASE WHEN st = 'RUNNING' THEN 'worker-' || (g % 7) END,
       CASE WHEN st = 'FAILED' THEN 'java.lang.IllegalStateException: planned failure ' || (g % 13) END,
       CASE WHEN st = 'SUCCEEDED' THEN '{"ok":true}'::jsonb END,
       CASE WHEN g % 100 = 0 THEN 'order-' || g END
FROM (
  SELECT g, ms, md5(g::text) AS h,
         CASE WHEN ms > ? THEN 'PENDING'
              WHEN g % 100000 = 7 THEN 'RUNNING'
              WHEN g % 100 < 5 THEN 'FAILED'
              WHEN g % 100 = 5 THEN 'CANCELLED'
              ELSE 'SUCCEEDED' END AS st
  FROM (SELECT g, ? + (g * 7919 % ?) * ? / ? AS ms FROM generate_series(?, ?) g) x
) y
