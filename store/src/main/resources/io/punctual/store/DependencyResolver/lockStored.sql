-- The stored jobs new jobs will wait for, share-locked until the new jobs and their edges commit:
-- none of them can end meanwhile without waiting for this transaction, and once this transaction
-- commits, the step that ends one of them sees the new edges. A job that already ended is returned
-- as it is now (a locking read returns the latest version), and the new job is judged at once.
SELECT id, namespace, status FROM jobs
WHERE id = ANY(:ids)
  AND scheduled_at BETWEEN :minScheduled AND :maxScheduled
FOR SHARE
