-- Punctual schema, version 19: bulk actions survive the API process that runs them.
--
-- owner: the API process working through the action now (null: none, e.g. it stopped cleanly);
-- heartbeat_at: when that process last finished a batch (or took the action). A running action
-- whose heartbeat is older than api.bulkStaleAfter (or that has no owner) is taken over by another
-- API process (BulkRunner), which continues from the jobs still listed in bulk_action_jobs: each
-- batch takes its jobs off the list, acts on them and adds them to done/failed in one
-- transaction, so a job is acted on and counted once whoever finishes the action.
-- takeovers: how many times it was taken over since its last batch; past a bound the action is
-- marked failed (a batch that stops every process that runs it would otherwise go round forever).
-- An action still running from before this version has neither, and is taken over like a stale one.
ALTER TABLE bulk_actions ADD COLUMN owner text;
ALTER TABLE bulk_actions ADD COLUMN heartbeat_at timestamptz;
ALTER TABLE bulk_actions ADD COLUMN takeovers integer NOT NULL DEFAULT 0;

-- The recovery loop's scan: only the running actions.
CREATE INDEX bulk_actions_running ON bulk_actions (created_at) WHERE status = 'running';
