-- Drops the partitions past retention (see punctual_drop_expired_partitions in V2).
SELECT table_name, action FROM punctual_drop_expired_partitions(:jobsBefore, :executionsBefore)
