-- Running actions nobody works on: without owner, or whose owner's heartbeat is older than
-- :staleBefore (an action from before V19 has none: its updated_at stands in). Those locked by a
-- batch in progress are skipped (it is being worked on). Each becomes :owner's.
UPDATE bulk_actions SET owner = :owner, heartbeat_at = :now, takeovers = takeovers + 1,
                        updated_at = :now
WHERE id IN (SELECT id FROM bulk_actions
             WHERE status = 'running'
               AND (owner IS NULL OR COALESCE(heartbeat_at, updated_at) < :staleBefore)
             ORDER BY created_at
             LIMIT :limit
             FOR UPDATE SKIP LOCKED)
RETURNING id, namespace, action, takeovers, error
