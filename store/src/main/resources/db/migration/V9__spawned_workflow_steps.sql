-- Punctual schema, version 9: the follow-up jobs a workflow step's handler spawns belong to the
-- workflow (cancelling the workflow cancels them, reading it shows them).
--
-- Such a follow-up gets a row of workflow_steps beside the steps submitted with the workflow:
-- spawned_by names the job that spawned it, position is that job's position (so it is listed
-- after it, in the order the rows were made: seq), and its ref is "<spawner's ref>.spawn[<index>]",
-- a description rather than a name (a submitted step may have chosen the same text). So positions
-- and refs stay unique among submitted steps only, and a step row is identified by its job.
ALTER TABLE workflow_steps ADD COLUMN spawned_by uuid;
ALTER TABLE workflow_steps ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY;
ALTER TABLE workflow_steps DROP CONSTRAINT workflow_steps_pkey;
ALTER TABLE workflow_steps DROP CONSTRAINT workflow_steps_ref_unique;
ALTER TABLE workflow_steps ADD CONSTRAINT workflow_steps_pkey PRIMARY KEY (workflow_id, job_id);
CREATE UNIQUE INDEX workflow_steps_position_unique ON workflow_steps (workflow_id, position)
    WHERE spawned_by IS NULL;
CREATE UNIQUE INDEX workflow_steps_ref_unique ON workflow_steps (workflow_id, ref)
    WHERE spawned_by IS NULL;
