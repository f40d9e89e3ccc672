-- The partition functions, in their current definitions (Flyway applies this repeatable migration
-- after the versioned ones, and again whenever it changes). They were defined in V1 (creation), V2,
-- V5 and V8 (retention); those versions now point here, and Migrations realigns the checksums an
-- older release recorded for them. A change of a function's signature or return type needs a DROP
-- FUNCTION first (CREATE OR REPLACE cannot change them). No versioned migration may call these
-- functions: on a new database they exist only once every versioned migration has run.

-- Creates the daily partitions of jobs and job_executions covering [p_from, p_to] (UTC days) that
-- do not exist yet; returns how many tables it created. Safe to call concurrently.
CREATE OR REPLACE FUNCTION punctual_ensure_partitions(p_from date, p_to date) RETURNS integer
    LANGUAGE plpgsql AS
$$
DECLARE
    d       date := p_from;
    parent  text;
    child   text;
    created integer := 0;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('punctual_ensure_partitions'));
    WHILE d <= p_to LOOP
        FOREACH parent IN ARRAY ARRAY['jobs', 'job_executions'] LOOP
            child := parent || '_p' || to_char(d, 'YYYYMMDD');
            IF to_regclass(child) IS NULL THEN
                EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',
                               child, parent,
                               (d::timestamp AT TIME ZONE 'UTC'),
                               ((d + 1)::timestamp AT TIME ZONE 'UTC'));
                created := created + 1;
            END IF;
        END LOOP;
        d := d + 1;
    END LOOP;
    RETURN created;
END
$$;

-- Drops the daily partitions that are past retention: a day's job_executions partition when the
-- day is before p_executions_before, its jobs partition (and its executions with it) when it is
-- before p_jobs_before; a day's progress and log lines (job_progress, job_logs) go with its
-- executions. A day whose jobs partition still holds a job that is not final (BLOCKED,
-- PENDING or RUNNING) keeps both of its tables, whatever its age. Returns one row per table dropped
-- ('dropped') or kept for that reason ('kept'). Safe to call concurrently (the same advisory lock as
-- partition creation), and against a write landing in a day while that day is dropped: before the
-- first day it would drop, it shuts every writer out of jobs and job_executions (ACCESS EXCLUSIVE on
-- both parents, which an INSERT, UPDATE or DELETE through a parent must share; the DROP that follows
-- needs that lock on the parents anyway), waiting for writes in flight to commit, and checks the
-- day again under the lock. The parents are locked before any partition, and in the order the
-- writers lock them (finish and rescue: jobs, then job_executions); a reader of the execution
-- history takes them the other way round, and should one ever cross this function, PostgreSQL's
-- deadlock detector ends one of the two (the reaper tries again at its next pass). The lock is held
-- until the function's transaction ends, as the DROP's lock on the parents already was (V8).
CREATE OR REPLACE FUNCTION punctual_drop_expired_partitions(p_jobs_before date, p_executions_before date)
    RETURNS TABLE (table_name text, action text)
    LANGUAGE plpgsql AS
$$
DECLARE
    d            date;
    jobs_table   text;
    exec_table   text;
    live         boolean;
    locked       boolean := false;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('punctual_ensure_partitions'));
    FOR d IN
        SELECT DISTINCT to_date(substring(c.relname FROM '_p([0-9]{8})$'), 'YYYYMMDD') AS day
        FROM pg_inherits i
        JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent IN ('jobs'::regclass, 'job_executions'::regclass)
          AND c.relname ~ '_p[0-9]{8}$'
        ORDER BY day
    LOOP
        EXIT WHEN d >= greatest(p_jobs_before, p_executions_before);
        jobs_table := 'jobs_p' || to_char(d, 'YYYYMMDD');
        exec_table := 'job_executions_p' || to_char(d, 'YYYYMMDD');
        live := false;
        IF to_regclass(jobs_table) IS NOT NULL THEN
            EXECUTE format(
                'SELECT EXISTS (SELECT 1 FROM %I WHERE status IN (''BLOCKED'', ''PENDING'', ''RUNNING''))',
                jobs_table) INTO live;
        END IF;
        IF NOT live AND NOT locked THEN
            -- About to drop: no writer may get in any more, and what one wrote meanwhile counts.
            LOCK TABLE ONLY jobs, ONLY job_executions IN ACCESS EXCLUSIVE MODE;
            locked := true;
            IF to_regclass(jobs_table) IS NOT NULL THEN
                EXECUTE format(
                    'SELECT EXISTS (SELECT 1 FROM %I WHERE status IN (''BLOCKED'', ''PENDING'', ''RUNNING''))',
                    jobs_table) INTO live;
            END IF;
        END IF;
        IF live THEN
            IF d < p_executions_before OR d < p_jobs_before THEN
                table_name := jobs_table;
                action := 'kept';
                RETURN NEXT;
            END IF;
            CONTINUE;
        END IF;
        IF d < p_executions_before OR d < p_jobs_before THEN
            -- The day's progress and log lines go with its execution history (V34): the same UTC
            -- day as its partitions' bounds, whatever the session's TimeZone (a date compared with
            -- a timestamptz would be read as midnight there).
            DELETE FROM job_progress
            WHERE job_scheduled_at >= (d::timestamp AT TIME ZONE 'UTC')
              AND job_scheduled_at < ((d + 1)::timestamp AT TIME ZONE 'UTC');
            DELETE FROM job_logs
            WHERE job_scheduled_at >= (d::timestamp AT TIME ZONE 'UTC')
              AND job_scheduled_at < ((d + 1)::timestamp AT TIME ZONE 'UTC');
        END IF;
        IF d < p_executions_before AND to_regclass(exec_table) IS NOT NULL THEN
            EXECUTE format('DROP TABLE %I', exec_table);
            table_name := exec_table;
            action := 'dropped';
            RETURN NEXT;
        END IF;
        IF d < p_jobs_before AND to_regclass(jobs_table) IS NOT NULL THEN
            IF to_regclass(exec_table) IS NOT NULL THEN
                EXECUTE format('DROP TABLE %I', exec_table);
                table_name := exec_table;
                action := 'dropped';
                RETURN NEXT;
            END IF;
            EXECUTE format('DROP TABLE %I', jobs_table);
            table_name := jobs_table;
            action := 'dropped';
            RETURN NEXT;
        END IF;
    END LOOP;
END
$$;

-- Creates the daily partitions of audit_log covering [p_from, p_to] (UTC days) that do not exist
-- yet, each with the trigger refusing TRUNCATE (a statement trigger on the parent does not fire
-- for a partition truncated by name; UPDATE and DELETE are refused by the parent's row trigger,
-- which every partition inherits); returns how many it created. Safe to call concurrently.
CREATE OR REPLACE FUNCTION punctual_ensure_audit_partitions(p_from date, p_to date) RETURNS integer
    LANGUAGE plpgsql AS
$$
DECLARE
    d       date := p_from;
    child   text;
    created integer := 0;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('punctual_audit_partitions'));
    WHILE d <= p_to LOOP
        child := 'audit_log_p' || to_char(d, 'YYYYMMDD');
        IF to_regclass(child) IS NULL THEN
            EXECUTE format('CREATE TABLE %I PARTITION OF audit_log FOR VALUES FROM (%L) TO (%L)',
                           child,
                           (d::timestamp AT TIME ZONE 'UTC'),
                           ((d + 1)::timestamp AT TIME ZONE 'UTC'));
            EXECUTE format('CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON %I'
                               ' FOR EACH STATEMENT EXECUTE FUNCTION punctual_audit_append_only()',
                           child);
            created := created + 1;
        END IF;
        d := d + 1;
    END LOOP;
    RETURN created;
END
$$;

-- Drops the daily partitions of audit_log whose day is before p_before (the retention of the audit
-- log: whole days leave, no row is ever deleted); returns the tables dropped. An insert in flight
-- into the parent holds a lock the DROP waits for; an insert for a day dropped meanwhile fails and
-- its writer creates the day again. Safe to call concurrently.
CREATE OR REPLACE FUNCTION punctual_drop_audit_partitions(p_before date) RETURNS SETOF text
    LANGUAGE plpgsql AS
$$
DECLARE
    child text;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('punctual_audit_partitions'));
    FOR child IN
        SELECT c.relname
        FROM pg_inherits i
        JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'audit_log'::regclass
          AND c.relname ~ '^audit_log_p[0-9]{8}$'
          AND to_date(substring(c.relname FROM '_p([0-9]{8})$'), 'YYYYMMDD') < p_before
        ORDER BY c.relname
    LOOP
        EXECUTE format('DROP TABLE %I', child);
        RETURN NEXT child;
    END LOOP;
END
$$;
