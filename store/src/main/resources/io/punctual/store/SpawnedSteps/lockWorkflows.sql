-- Share-locks the workflows whose steps are about to spawn follow-ups, in id order, until the
-- follow-ups and their step rows commit. Cancelling a workflow updates its row first
-- (WorkflowStore/markCancelled.sql), so it waits here for the new steps to commit and then cancels
-- them with the others; or it cancelled first, and then the spawning step is CANCELLED already and
-- its success, with its follow-ups, is refused. Locking before the finish statement takes the
-- step's own row keeps the order of a cancel (workflow, then its jobs): the two never deadlock.
SELECT id FROM workflows
WHERE id = ANY(:ids)
ORDER BY id
FOR SHARE
