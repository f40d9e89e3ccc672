-- What a worker's claim loop needs of every namespace with a row: whether it is active, its weight.
SELECT name, active, weight FROM namespaces
