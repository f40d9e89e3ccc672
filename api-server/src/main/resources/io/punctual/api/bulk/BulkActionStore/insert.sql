-- A bulk action accepted: its row, running, with the number of jobs it took.
INSERT INTO bulk_actions (id, namespace, action, filter, status, count, done, failed, key_id,
                          created_at, updated_at)
VALUES (:id, :namespace, :action, CAST(:filter AS jsonb), 'running', :count, 0, 0, :keyId, :now,
        :now)
