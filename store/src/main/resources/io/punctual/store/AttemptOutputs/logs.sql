-- One attempt's log lines after :afterSeq, in order, at most :limit.
SELECT seq, logged_at, line
FROM job_logs
WHERE job_id = :id AND attempt = :attempt AND namespace = :namespace AND seq > :afterSeq
ORDER BY seq
LIMIT :limit
