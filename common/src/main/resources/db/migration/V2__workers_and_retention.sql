-- Punctual schema, version 2: the worker registry and retention of old partitions.

-- One row per worker process, written when it starts, on every heartbeat and when it stops. The
-- reaper deletes rows of workers gone for longer than its workerRetention. Which jobs a worker
-- runs is not copied here: jobs.worker_id of the RUNNING jobs says it.
CREATE TABLE workers (
    id                    text        NOT NULL,
    host                  text        NOT NULL,
    pid                   bigint      NOT NULL,
    namespaces            text[]      NOT NULL,
    concurrency           integer     NOT NULL,
    heartbeat_interval_ms bigint      NOT NULL,
    running               integer     NOT NULL DEFAULT 0,
    started_at            timestamptz NOT NULL,
    heartbeat_at          timestamptz NOT NULL,
    stopped_at            timestamptz,
    CONSTRAINT workers_pkey PRIMARY KEY (id)
);

-- Drops the daily partitions that are past retention: a day's job_executions partition when the
-- day is before p_executions_before, its jobs partition (and its executions with it) when it is
-- before p_jobs_before. A day whose jobs partition still holds a job that is not final keeps both
-- of its tables, whatever its age. Returns one row per table dropped ('dropped') or kept for that
-- reason ('kept'). Safe to call concurrently (the same advisory lock as partition creation).
CREATE FUNCTION punctual_drop_expired_partitions(p_jobs_before date, p_executions_before date)
    RETURNS TABLE (table_name text, action text)
    LANGUAGE plpgsql AS
$$
DECLARE
    d            date;
    jobs_table   text;
    exec_table   text;
    live         boolean;
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
                'SELECT EXISTS (SELECT 1 FROM %I WHERE status NOT IN (''SUCCEEDED'', ''FAILED'', ''CANCELLED''))',
                jobs_table) INTO live;
        END IF;
        IF live THEN
            IF d < p_executions_before OR d < p_jobs_before THEN
                table_name := jobs_table;
                action := 'kept';
                RETURN NEXT;
            END IF;
            CONTINUE;
        END IF;
        IF d < p_executions_before AND to_regclass(exec_table) IS NOT NULL THEN
            EXECUTE format('DROP TABLE %I', exec_table);
            table_name := exec_table;
            action := 'dropped';
            RETURN NEXT;
        END IF;
        IF d < p_jobs_before AND to_regclass(jobs_table) IS NOT NULL THEN
            -- The day's history goes with its jobs, whatever the executions retention says.
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
