-- Drops the partitions past retention (punctual_drop_expired_partitions, V8).
SELECT table_name, action FROM punctual_drop_expired_partitions(:jobsBefore, :executionsBefore)
