-- The W3C traceparent of what submitted a job (the REST request's header, a client, a handler's
-- attempt for its follow-ups): the worker's span of each attempt is a child of it. Null for none.
-- Adding a nullable column without a default rewrites nothing.
ALTER TABLE jobs ADD COLUMN traceparent text;
