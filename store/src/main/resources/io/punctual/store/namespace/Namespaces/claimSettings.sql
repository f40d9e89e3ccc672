-- What a worker needs of every namespace with a row: whether it is active, its weight, and the caps
-- on its running attempts (how many at once, how long each).
SELECT name, active, weight, max_running, max_timeout_ms FROM namespaces
