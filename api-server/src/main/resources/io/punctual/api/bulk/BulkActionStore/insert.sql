-- A bulk action accepted: its row, running, owned by the API process that accepted it, with the
-- number of jobs it took.
INSERT INTO bulk_actions (id, namespace, action, filter, status, count, done, failed, key_id,
                          owner, heartbeat_at, created_at, updated_at)
VALUES (:id, :namespace, :action, CAST(:filter AS jsonb), 'running', :count, 0, 0, :keyId,
        :owner, :now, :now, :now)
