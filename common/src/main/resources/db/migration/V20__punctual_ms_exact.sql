-- Punctual schema, version 20: punctual_ms (epoch milliseconds to timestamptz, V1) in integer
-- arithmetic. V1 divided a double by 1000 (to_timestamp), which is exact to the microsecond only to
-- about the year 4146; this is exact for every millisecond PostgreSQL can hold, in any time zone:
-- whole hours and the milliseconds within the hour (under 3 600 000, so the double make_interval
-- takes them as is exact, and it rounds them to the microsecond) on a timestamp without time zone,
-- read as UTC. Every function in the body is immutable, so PostgreSQL still inlines the call (an
-- interval added to a timestamptz is only stable, and would not be).
CREATE OR REPLACE FUNCTION punctual_ms(ms bigint) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT timezone(interval '0',
                   timestamp '1970-01-01'
                   + make_interval(hours => CAST(ms / 3600000 AS integer),
                                   secs => CAST(ms % 3600000 AS double precision) / 1000)) $$;
