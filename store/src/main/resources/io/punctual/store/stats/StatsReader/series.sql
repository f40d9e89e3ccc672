-- Per minute of one namespace in [:from, :to): attempts started, succeeded, failed (FAILED,
-- TIMED_OUT and LOST: the attempts that did not succeed and were not cancelled).
SELECT minute, sum(started) AS started, sum(succeeded) AS succeeded,
       sum(failed + timed_out + lost) AS failed
FROM job_stats_minutes
WHERE namespace = :namespace AND minute >= :from AND minute < :to
GROUP BY minute
ORDER BY minute
