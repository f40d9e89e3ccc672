-- Punctual schema, version 20: punctual_ms (epoch milliseconds to timestamptz, V1) in integer
-- arithmetic. V1 divided a double by 1000 (to_timestamp), which puts some times from the year 2242
-- on (2^33 seconds) a microsecond or more off; this is exact for every millisecond PostgreSQL can
-- hold, in any time zone:
-- whole hours and the milliseconds within the hour (under 3 600 000, so the double make_interval
-- takes them as is exact, and it rounds them to the microsecond) on a timestamp without time zone,
-- read as UTC. Every function in the body is immutable, so PostgreSQL still inlines the call (an
-- interval added to a timestamptz is only stable, and would not be).
CREATE OR REPLACE FUNCTION punctual_ms(ms bigint) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT timezone(interval '0',
                   timestamp '1970-01-01'
                   + make_interval(hours => CAST(ms / 3600000 AS integer),
                                   secs => CAST(ms % 3600000 AS double precision) / 1000)) $$;

-- V1's values were already a microsecond or so off from the year 2242 on (2^33 seconds), and a row
-- stored with one would no longer match the exact value its id gives (every batched statement
-- finds a job by id and punctual_ms(its id's time)). Rows that hold a job's scheduled time (only a
-- runAt that far ahead puts one there) are put back on the millisecond it always meant: the drift
-- is microseconds, so rounding to the nearest millisecond restores it, within the same daily
-- partition (whole seconds were exact, so no value moves across midnight). Partitioned tables scan
-- only their partitions from 2242 on.
UPDATE jobs
SET scheduled_at = date_trunc('milliseconds', scheduled_at + interval '0.5 millisecond')
WHERE scheduled_at >= timestamptz '2242-01-01 00:00:00+00'
  AND scheduled_at <> date_trunc('milliseconds', scheduled_at + interval '0.5 millisecond');

UPDATE job_executions
SET job_scheduled_at = date_trunc('milliseconds', job_scheduled_at + interval '0.5 millisecond')
WHERE job_scheduled_at >= timestamptz '2242-01-01 00:00:00+00'
  AND job_scheduled_at <> date_trunc('milliseconds', job_scheduled_at + interval '0.5 millisecond');

UPDATE job_dependencies
SET job_scheduled_at = date_trunc('milliseconds', job_scheduled_at + interval '0.5 millisecond')
WHERE job_scheduled_at >= timestamptz '2242-01-01 00:00:00+00'
  AND job_scheduled_at <> date_trunc('milliseconds', job_scheduled_at + interval '0.5 millisecond');

UPDATE job_dependencies
SET depends_on_scheduled_at =
        date_trunc('milliseconds', depends_on_scheduled_at + interval '0.5 millisecond')
WHERE depends_on_scheduled_at >= timestamptz '2242-01-01 00:00:00+00'
  AND depends_on_scheduled_at <>
      date_trunc('milliseconds', depends_on_scheduled_at + interval '0.5 millisecond');

UPDATE workflow_steps
SET job_scheduled_at = date_trunc('milliseconds', job_scheduled_at + interval '0.5 millisecond')
WHERE job_scheduled_at >= timestamptz '2242-01-01 00:00:00+00'
  AND job_scheduled_at <> date_trunc('milliseconds', job_scheduled_at + interval '0.5 millisecond');

UPDATE limit_slots
SET job_scheduled_at = date_trunc('milliseconds', job_scheduled_at + interval '0.5 millisecond')
WHERE job_scheduled_at >= timestamptz '2242-01-01 00:00:00+00'
  AND job_scheduled_at <> date_trunc('milliseconds', job_scheduled_at + interval '0.5 millisecond');

UPDATE bulk_action_jobs
SET job_scheduled_at = date_trunc('milliseconds', job_scheduled_at + interval '0.5 millisecond')
WHERE job_scheduled_at >= timestamptz '2242-01-01 00:00:00+00'
  AND job_scheduled_at <> date_trunc('milliseconds', job_scheduled_at + interval '0.5 millisecond');

UPDATE schedule_occurrences
SET fire_at = date_trunc('milliseconds', fire_at + interval '0.5 millisecond')
WHERE fire_at >= timestamptz '2242-01-01 00:00:00+00'
  AND fire_at <> date_trunc('milliseconds', fire_at + interval '0.5 millisecond');
