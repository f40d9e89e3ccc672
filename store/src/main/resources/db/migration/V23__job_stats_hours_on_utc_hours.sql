-- Punctual schema, version 23: hour rows on whole UTC hours. V21's rollup truncated each minute to
-- its hour in the session's time zone, which the driver takes from the reaper's JVM: in a zone off
-- UTC by a part of an hour (Asia/Kolkata, +05:30) every hour row was keyed at :30, where the reader
-- (whole UTC hours) never looks, so statistics over whole hours came out short. The rollup now
-- truncates in UTC. A store with such rows loses them here, and its hours and days are filled
-- again from the minutes by the reaper (StatsRollup, a day of hours per pass); meanwhile the API
-- reads those hours from the minutes, which were always right. A store without such rows (every
-- reaper in a zone on whole hours) is not touched.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM job_stats_hours WHERE hour <> date_trunc('hour', hour, 'UTC')) THEN
        DELETE FROM job_stats_hours WHERE hour <> date_trunc('hour', hour, 'UTC');
        DELETE FROM job_stats_days;
        UPDATE job_stats_rollup SET hours_until = NULL, days_from = NULL, days_until = NULL;
    END IF;
END
$$;
