-- A planner's beat (see V7__planner_liveness.sql). The first beat ever creates the row. Otherwise,
-- when the latest beat is older than :silentBefore (now - planner.misfireThreshold), the silence
-- since was an outage: it began at that beat and ends now. alive_at never moves back, so a planner
-- whose clock is a little behind another's neither hides nor invents an outage. The expressions
-- of SET all read the row as it was before this statement.
INSERT INTO planner_liveness AS l (id, alive_at, resumed_at, down_since)
VALUES (true, :now, :now, NULL)
ON CONFLICT (id) DO UPDATE
SET resumed_at = CASE WHEN l.alive_at < :silentBefore THEN :now ELSE l.resumed_at END,
    down_since = CASE WHEN l.alive_at < :silentBefore THEN l.alive_at ELSE l.down_since END,
    alive_at   = GREATEST(l.alive_at, :now)
RETURNING alive_at, resumed_at, down_since
