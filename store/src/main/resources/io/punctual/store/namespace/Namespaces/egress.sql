-- A namespace's grant; no row for a namespace without one.
SELECT egress_allow, keep_callback_response FROM namespaces WHERE name = :name
