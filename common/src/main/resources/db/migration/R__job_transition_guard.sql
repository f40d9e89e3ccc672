-- PostgreSQL refuses a change of a job's status that is not a named transition: the same table as
-- JobState.Transition (JobTransitionGuardIT checks that the two agree), applied to every UPDATE of
-- jobs.status whatever sent it (a statement of JobTransitions, an operator's psql session, a
-- migration). Only a row whose status changes calls the function (the WHEN clause); a heartbeat or
-- a count of open edges does not. A repeatable migration: a change of the table is made here, and
-- Flyway applies it again.
CREATE OR REPLACE FUNCTION punctual_refuse_illegal_transition() RETURNS trigger
    LANGUAGE plpgsql AS
$$
BEGIN
    IF (OLD.status, NEW.status) NOT IN (
        ('PENDING', 'RUNNING'),     -- CLAIM
        ('RUNNING', 'SUCCEEDED'),   -- SUCCEED
        ('RUNNING', 'PENDING'),     -- RETRY, RESCUE
        ('RUNNING', 'FAILED'),      -- FAIL, RESCUE_EXHAUSTED
        ('PENDING', 'CANCELLED'),   -- CANCEL_PENDING
        ('RUNNING', 'CANCELLED'),   -- CANCEL_RUNNING
        ('BLOCKED', 'PENDING'),     -- UNBLOCK
        ('BLOCKED', 'SKIPPED'),     -- SKIP
        ('BLOCKED', 'CANCELLED')    -- CANCEL_BLOCKED
    ) THEN
        RAISE EXCEPTION 'no transition leads from % to % (job %)', OLD.status, NEW.status, OLD.id
            USING HINT = 'every status change is a named transition of JobState.Transition';
    END IF;
    RETURN NEW;
END
$$;

DROP TRIGGER IF EXISTS jobs_status_transition ON jobs;
CREATE TRIGGER jobs_status_transition
    BEFORE UPDATE OF status ON jobs
    FOR EACH ROW
    WHEN (OLD.status IS DISTINCT FROM NEW.status)
    EXECUTE FUNCTION punctual_refuse_illegal_transition();
