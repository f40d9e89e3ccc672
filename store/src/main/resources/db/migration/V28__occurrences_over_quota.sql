-- A schedule's fire time may be recorded without a job because its namespace held its
-- quota.maxPending when the planner came to it (outcome 'skipped_quota'): schedules count against
-- the namespace's quotas like submits, and a fire time over the quota is skipped, not queued up.
ALTER TABLE schedule_occurrences DROP CONSTRAINT schedule_occurrences_outcome_check;
ALTER TABLE schedule_occurrences ADD CONSTRAINT schedule_occurrences_outcome_check
    CHECK (outcome IN ('job', 'skipped_overlap', 'missed', 'skipped_quota'));
