-- Whether the daily partition of jobs for :day exists (named as punctual_ensure_partitions names it).
SELECT to_regclass(format('jobs_p%s', to_char(CAST(:day AS date), 'YYYYMMDD'))) IS NOT NULL
