-- Log lines of running attempts, each numbered by its attempt (seq from 1); a line written twice
-- (a batch retried after an unknown commit) is kept once.
INSERT INTO job_logs (job_id, attempt, seq, job_scheduled_at, namespace, logged_at, line)
SELECT v.id, v.attempt, v.seq, punctual_ms(v.ms), v.namespace, punctual_ms(v.at_ms), v.line
FROM unnest(:ids, :scheduledMs, :attempts, :seqs, :namespaces, :atMs, :lines)
     AS v(id, ms, attempt, seq, namespace, at_ms, line)
ON CONFLICT (job_id, attempt, seq) DO NOTHING
