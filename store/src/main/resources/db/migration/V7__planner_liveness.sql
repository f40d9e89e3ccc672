-- Punctual schema, version 7: when the planners were last alive, so that a fire time counts as
-- missed (the schedule's misfire policy applies) only when every planner was down, never because
-- a planner that kept working was busy (a long pass over many schedules).

-- One row, shared by every planner process. A planner beats before it plans a batch once its last
-- beat is planner.misfireThreshold / 4 old, so a working planner, or an idle one (a pass at least
-- every planner.interval, at most half the threshold), beats well within the threshold: alive_at
-- moves forward. A beat that finds alive_at older than
-- planner.misfireThreshold has found an outage: no planner worked from down_since (the last beat
-- before it) to resumed_at (that beat). Fire times still unplanned that came more than
-- planner.misfireThreshold before resumed_at were missed; later ones are only late, however long
-- the planners then take to reach them. The first beat ever sets resumed_at too: what came before
-- any planner ran was missed. The row is written by a planner outside its planning transactions,
-- one short statement at a time, so planners never wait on each other for it.
CREATE TABLE planner_liveness (
    id          boolean     NOT NULL DEFAULT true,
    alive_at    timestamptz NOT NULL,
    resumed_at  timestamptz NOT NULL,
    down_since  timestamptz,
    CONSTRAINT planner_liveness_pkey PRIMARY KEY (id),
    CONSTRAINT planner_liveness_one_row CHECK (id),
    CONSTRAINT planner_liveness_order_check
        CHECK (resumed_at <= alive_at AND (down_since IS NULL OR down_since < resumed_at))
);
