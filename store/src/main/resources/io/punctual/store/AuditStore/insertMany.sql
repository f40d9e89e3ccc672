-- Audit entries in one statement, one array per column (times as epoch microseconds). Rows are
-- numbered in the order given, so the ids of one batch follow the order the API answered in.
INSERT INTO audit_log (at, request_id, key_id, key_name, namespace, action, target, status, problem,
                       kind, count, first_at, source, reason)
SELECT timestamptz 'epoch' + v.at_us * interval '1 microsecond', v.request_id, v.key_id,
       v.key_name, v.namespace, v.action, v.target, CAST(v.status AS smallint), v.problem,
       v.kind, v.count, timestamptz 'epoch' + v.first_at_us * interval '1 microsecond', v.source,
       v.reason
FROM unnest(:atMicros, :requestIds, :keyIds, :keyNames, :namespaces, :actions, :targets,
            :statuses, :problems, :kinds, :counts, :firstAtMicros, :sources, :reasons)
     WITH ORDINALITY
     AS v(at_us, request_id, key_id, key_name, namespace, action, target, status, problem, kind,
          count, first_at_us, source, reason, n)
ORDER BY v.n
